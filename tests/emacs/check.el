;;; check.el --- headless Emacs + Eglot drives sourcemap-ls (tests/emacs/run.sh runs it)  -*- lexical-binding: t -*-
;;
;; Emacs 28 and Eglot 1.9 (Debian's emacs-nox + elpa-eglot), as users have them: no markdown-mode, so Eglot asks
;; for plain-text hovers; it opens only `file:' locations; it sends `shutdown' with "params": null.
;; The workspace is a git repository made by run.sh ($SOURCEMAP_WS): Eglot takes the project root from it.

(package-initialize)
(require 'eglot)
(require 'xref)
(require 'flymake)

(defvar check-failures 0)
(defun check-say (fmt &rest args)
  (princ (concat (apply #'format fmt args) "\n") #'external-debugging-output))
(defun check (name ok &optional detail)
  (check-say "%s: %s%s" (if ok "ok" "FAIL") name (if detail (format " -- %S" detail) ""))
  (unless ok (setq check-failures (1+ check-failures))))

(defvar ws (file-name-as-directory (getenv "SOURCEMAP_WS")))
(defvar server-bin (getenv "SOURCEMAP_LS"))
(add-to-list 'auto-mode-alist '("\\.bundle\\'" . js-mode))
(add-to-list 'eglot-server-programs `(js-mode ,server-bin "--stdio"))
(setq eglot-sync-connect t
      eglot-autoshutdown nil)

(defun goto (line column)
  "Point at 0-based LINE and UTF-16 COLUMN (the ASCII fixtures make it a character column)."
  (goto-char (point-min))
  (forward-line line)
  (forward-char column))

(defun goto-text (text)
  (goto-char (point-min))
  (search-forward text)
  (goto-char (match-beginning 0)))

(defun definition-at-point ()
  "What M-. would open: (FILE . LINE) of Eglot's first xref."
  (let* ((items (xref-backend-definitions 'eglot (xref-backend-identifier-at-point 'eglot)))
         (loc (and items (xref-item-location (car items)))))
    (and loc (cons (xref-location-group loc) (xref-location-line loc)))))

(defun hover-at-point (server)
  (jsonrpc-request server :textDocument/hover (eglot--TextDocumentPositionParams)))

(condition-case err
    (progn
      ;; A minified bundle whose sources are files of the workspace.
      (find-file (concat ws "demo/dist/app.min.js"))
      (apply #'eglot (eglot--guess-contact))
      (let ((server (eglot-current-server)))
        (check "eglot connected" server)
        (goto 0 49)
        (let* ((hover (hover-at-point server))
               (contents (plist-get hover :contents))
               (value (plist-get contents :value)))
          (check "hover is plain text" (equal (plist-get contents :kind) "plaintext") contents)
          (check "hover names the original position and function"
                 (and value (string-match-p "src/orders\\.js:5:24 in parseOrder" value)) value)
          (check "no markdown marks in the plain text" (and value (not (string-match-p "\\*\\*\\|```" value))) value))
        (goto 0 49)
        (let ((def (definition-at-point)))
          (check "M-. opens the original file at its line"
                 (and def (string-suffix-p "demo/src/orders.js" (car def)) (= (cdr def) 5)) def))
        (let ((symbols (jsonrpc-request server :textDocument/documentSymbol
                                        (list :textDocument (eglot--TextDocumentIdentifier)))))
          (check "outline lists the modules" (> (length symbols) 0) (length symbols)))

        ;; A Metro bundle: React exists only in sourcesContent.
        (find-file (concat ws "metro/index.bundle"))
        (eglot--maybe-activate-editing-mode)
        (goto-text "e.createElement")
        (let ((def (definition-at-point)))
          (check "M-. into a sourcesContent-only source opens a file copy"
                 (and def (string-suffix-p "node_modules/react/cjs/react.production.js" (car def))
                      (string-prefix-p (getenv "XDG_CACHE_HOME") (car def)))
                 def)
          (when def
            (with-current-buffer (find-file-noselect (car def))
              (check "the copy holds the map's text"
                     (save-excursion (goto-char (point-min))
                                     (search-forward "exports.createElement = function (type) {" nil t))))))
        (let ((symbols (jsonrpc-request server :textDocument/documentSymbol
                                        (list :textDocument (eglot--TextDocumentIdentifier)))))
          (check "outline of the Metro bundle has its 3 modules" (= (length symbols) 3) (length symbols)))

        ;; A bundle whose map is broken: a diagnostic where the comment names it.
        (find-file (concat ws "broken/app.js"))
        (eglot--maybe-activate-editing-mode)
        (let ((deadline (+ (float-time) 20)) diags)
          ;; Batch Emacs runs no idle timers: start Flymake's check (the Eglot backend) by hand.
          (while (and (null (setq diags (flymake-diagnostics))) (< (float-time) deadline))
            (flymake-start)
            (accept-process-output nil 0.2))
          (check "a broken map is a diagnostic on the bundle"
                 (and diags (string-match-p "mappings" (flymake-diagnostic-text (car diags))))
                 (mapcar #'flymake-diagnostic-text diags)))

        ;; Shut down as Eglot does ("params": null), then exit: the server answers and ends with status 0.
        (let ((proc (jsonrpc--process server)))
          (setf (eglot--shutdown-requested server) t)
          (check "shutdown with null params is answered"
                 (condition-case e (progn (jsonrpc-request server :shutdown nil :timeout 5) t)
                   (error (format "%S" e))))
          (jsonrpc-notify server :exit nil)
          (let ((deadline (+ (float-time) 10)))
            (while (and (process-live-p proc) (< (float-time) deadline))
              (accept-process-output nil 0.05)))
          (check "the server exits with status 0"
                 (and (not (process-live-p proc)) (= (process-exit-status proc) 0))
                 (list (process-status proc) (process-exit-status proc))))))
  (error (check "no Lisp error" nil err)))

(check-say "summary: %d failed" check-failures)
(kill-emacs (if (= check-failures 0) 0 1))
