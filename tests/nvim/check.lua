-- Real-editor check of sourcemap-ls with headless Neovim 0.7.2 (no vim.lsp.start: start_client + buf_attach_client).
-- Run: SOURCEMAP_LS=target/debug/sourcemap-ls timeout 60 nvim --headless --clean -c 'luafile tests/nvim/check.lua'
-- Prints one `ok: ...` / `FAIL: ...` line per check and a summary; exits 0 only if every check passed.

local TIMEOUT_MS = 10000
local passed, failed = 0, 0

local function out(line)
  io.stdout:write(line .. '\n')
  io.stdout:flush()
end

local function check(name, cond, detail)
  if cond then
    passed = passed + 1
    out('ok: ' .. name)
  else
    failed = failed + 1
    out('FAIL: ' .. name .. (detail and (' -- ' .. detail) or ''))
  end
end

local function repo_root()
  local env = os.getenv('SOURCEMAP_REPO')
  if env and env ~= '' then
    return vim.loop.fs_realpath(env) or env
  end
  -- This file is <repo>/tests/nvim/check.lua.
  local src = debug.getinfo(1, 'S').source:gsub('^@', '')
  local abs = vim.fn.fnamemodify(src, ':p')
  local root = vim.fn.fnamemodify(abs, ':h:h:h')
  return vim.loop.fs_realpath(root) or root
end

local function start(server, root)
  local id = vim.lsp.start_client({
    name = 'sourcemap-ls',
    cmd = { server, '--stdio' },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    -- The integration opens `sourcemap-source:` URIs itself (BufReadCmd below): say so.
    init_options = { sourcemapSourceScheme = true },
  })
  assert(id, 'vim.lsp.start_client failed for ' .. root)
  local client = vim.lsp.get_client_by_id(id)
  local ok = vim.wait(TIMEOUT_MS, function()
    return client.initialized == true or client.is_stopped()
  end, 20)
  assert(ok and client.initialized, 'server did not initialize (root ' .. root .. ')')
  return client
end

-- Opens `path` in a buffer and attaches `client` (didOpen); does not rely on filetype detection.
local function open(client, path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local bufnr = vim.api.nvim_get_current_buf()
  assert(vim.lsp.buf_attach_client(bufnr, client.id), 'buf_attach_client failed for ' .. path)
  return bufnr
end

-- One request through buf_request_sync; returns (result, err_string) from `client`.
local function request(bufnr, client, method, params)
  local results, err = vim.lsp.buf_request_sync(bufnr, method, params, TIMEOUT_MS)
  if not results then
    return nil, method .. ': ' .. tostring(err)
  end
  local r = results[client.id]
  if not r then
    return nil, method .. ': no answer from client ' .. client.id
  end
  if r.error then
    return nil, method .. ': error ' .. vim.inspect(r.error)
  end
  return r.result, nil
end

-- 0-based UTF-16 character of `token` on 0-based `line` of the buffer (the lines used are ASCII).
local function position_of(bufnr, line, token)
  local text = vim.api.nvim_buf_get_lines(bufnr, line, line + 1, true)[1]
  local at = text:find(token, 1, true)
  assert(at, ('%q not on line %d'):format(token, line))
  assert(not text:sub(1, at - 1):find('[\128-\255]'), 'non-ASCII before token: byte index is not UTF-16')
  return { line = line, character = at - 1 }
end

local function at(bufnr, pos)
  return { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = pos }
end

local function hover_text(result)
  if type(result) ~= 'table' then
    return ''
  end
  local c = result.contents
  if type(c) == 'string' then
    return c
  end
  if type(c) == 'table' and c.value then
    return c.value
  end
  local parts = {}
  for _, item in ipairs(c or {}) do
    parts[#parts + 1] = type(item) == 'table' and (item.value or '') or tostring(item)
  end
  return table.concat(parts, '\n')
end

-- A definition answer may be Location, Location[] or LocationLink[]: returns (uri, range) of the first.
local function first_location(result)
  if type(result) ~= 'table' then
    return nil
  end
  local loc = result.uri and result or result[1]
  if type(loc) ~= 'table' then
    return nil
  end
  return loc.uri or loc.targetUri, loc.range or loc.targetSelectionRange
end

local function main()
  local server = os.getenv('SOURCEMAP_LS')
  assert(server and server ~= '', 'set SOURCEMAP_LS to the sourcemap-ls binary')
  assert(vim.fn.executable(server) == 1, 'not executable: ' .. server)
  local repo = repo_root()
  out('nvim ' .. tostring(vim.version().major) .. '.' .. vim.version().minor .. '.' .. vim.version().patch
    .. ', repo ' .. repo)

  -- Metro: an index map whose absolute build paths are re-rooted into the workspace folder.
  local metro = repo .. '/fixtures/lsp/metro'
  local mc = start(server, metro)
  local mb = open(mc, metro .. '/index.bundle')

  local call = position_of(mb, 2, 'math.add')
  local h, err = request(mb, mc, 'textDocument/hover', at(mb, call))
  local text = hover_text(h)
  check('hover math.add -> src/App.js:4:17 (workspace path) `add`',
    text:find('src/App.js:4:17', 1, true) and text:find('`add`', 1, true),
    err or ('hover at ' .. vim.inspect(call) .. ': ' .. vim.inspect(h)))

  local d
  d, err = request(mb, mc, 'textDocument/definition', at(mb, call))
  local uri, range = first_location(d)
  local want = vim.uri_from_fname(metro .. '/src/App.js')
  check('definition math.add -> ' .. want .. ' 3:16',
    uri == want and range and range.start.line == 3 and range.start.character == 16,
    err or vim.inspect(d))

  local react = position_of(mb, 3, 'e.createElement')
  d, err = request(mb, mc, 'textDocument/definition', at(mb, react))
  uri = first_location(d)
  local prefix = 'sourcemap-source:///home/ci/build/MyApp/node_modules/react/cjs/react.production.js'
  local is_virtual = type(uri) == 'string' and uri:sub(1, #prefix) == prefix
  check('definition e.createElement -> ' .. prefix .. '...', is_virtual, err or vim.inspect(d))
  if is_virtual then
    local c
    c, err = request(mb, mc, 'sourcemap/sourceContent', { uri = uri })
    local body = type(c) == 'table' and c.text or nil
    local start_text = 'exports.createElement = function (type) {'
    check('sourcemap/sourceContent -> react source text',
      type(body) == 'string' and body:sub(1, #start_text) == start_text,
      err or vim.inspect(c))
    -- The recipe of docs/editors.md: a BufReadCmd that fills sourcemap-source: buffers from the server.
    vim.api.nvim_create_autocmd('BufReadCmd', {
      pattern = 'sourcemap-source://*',
      callback = function(args)
        for _, cl in ipairs(vim.lsp.get_active_clients()) do
          if cl.name == 'sourcemap-ls' then
            local resp = cl.request_sync('sourcemap/sourceContent', { uri = args.match }, 5000, args.buf)
            if resp and resp.result then
              vim.api.nvim_buf_set_lines(args.buf, 0, -1, false, vim.split(resp.result.text, '\n', { plain = true }))
              vim.bo[args.buf].modifiable = false
              return
            end
          end
        end
      end,
    })
    vim.cmd('edit ' .. vim.fn.fnameescape(uri))
    local first = vim.api.nvim_buf_get_lines(0, 0, 1, false)[1]
    check('opening the virtual document shows the react source', first == start_text, vim.inspect(first))
    vim.cmd('buffer ' .. mb)
  else
    check('sourcemap/sourceContent -> react source text', false, 'skipped: no virtual uri')
  end

  local s
  s, err = request(mb, mc, 'textDocument/documentSymbol', { textDocument = { uri = vim.uri_from_bufnr(mb) } })
  check('documentSymbol -> 3 modules, second /home/ci/build/MyApp/src/App.js',
    type(s) == 'table' and #s == 3 and s[2].name == '/home/ci/build/MyApp/src/App.js',
    err or vim.inspect(s))

  -- Demo: a one-line minified esbuild bundle with a flat map, in its own workspace.
  local demo = repo .. '/fixtures/demo'
  local dc = start(server, demo)
  local db = open(dc, demo .. '/dist/app.min.js')
  h, err = request(db, dc, 'textDocument/hover', at(db, { line = 0, character = 49 }))
  text = hover_text(h)
  check('hover app.min.js 0:49 -> src/orders.js:5:24',
    text:find('src/orders.js:5:24', 1, true) ~= nil, err or vim.inspect(h))

  -- CSS: real producers' bundles (fixtures/css, built by its make.mjs; `cargo nextest run --test css` builds it),
  -- hovered at positions where Mozilla source-map answers (dist/truth.json), and gd into the `.scss`.
  local css = repo .. '/fixtures/css'
  if vim.fn.filereadable(css .. '/dist/truth.json') ~= 1 then
    check('fixtures/css/dist is built', false, 'run: cargo nextest run --test css (it runs make.mjs)')
  else
    local cc = start(server, css)
    local sb = open(cc, css .. '/dist/sass/main.css')
    h, err = request(sb, cc, 'textDocument/hover', at(sb, { line = 6, character = 2 }))
    text = hover_text(h)
    check('hover sass main.css 6:2 -> src/components/_button.scss:10:3',
      text:find('src/components/_button.scss:10:3', 1, true) ~= nil, err or vim.inspect(h))
    d, err = request(sb, cc, 'textDocument/definition', at(sb, { line = 6, character = 2 }))
    uri, range = first_location(d)
    want = vim.uri_from_fname(css .. '/src/components/_button.scss')
    check('definition sass main.css 6:2 -> ' .. want .. ' 9:2',
      uri == want and range and range.start.line == 9 and range.start.character == 2, err or vim.inspect(d))
    local tb = open(cc, css .. '/dist/tailwind/out.css')
    h, err = request(tb, cc, 'textDocument/hover', at(tb, { line = 8, character = 4 }))
    text = hover_text(h)
    -- Two segments start there: the first written (`--font-mono:`, the text at the position) answers, as every
    -- answer at a tie (SourceMapIndex::answer_at); Mozilla 0.7.4 would say 12:1 (`"Courier New"`).
    check('hover tailwind out.css 8:4 -> node_modules/tailwindcss/index.css:10:5',
      text:find('node_modules/tailwindcss/index.css:10:5', 1, true) ~= nil, err or vim.inspect(h))
    local lb = open(cc, css .. '/dist/less/main.css')
    h, err = request(lb, cc, 'textDocument/hover', at(lb, { line = 5, character = 15 }))
    text = hover_text(h)
    check('hover less main.css 5:15 -> src/less/_variables.less:2:14',
      text:find('src/less/_variables.less:2:14', 1, true) ~= nil, err or vim.inspect(h))
  end

  -- Lines as editors count them (issue 65): bundles holding raw NEL, LS, PS, VT, FF in their lines and CRLF ends
  -- (fixtures/line-breaks). Neovim breaks lines only at its file format's ends, as LSP does; each segment is hovered
  -- at the cursor placed on its character in Neovim's buffer, the position made by Neovim's own LSP client.
  local lbdir = repo .. '/fixtures/line-breaks/dist'
  local truth = vim.fn.json_decode(table.concat(vim.fn.readfile(lbdir .. '/truth.json'), '\n'))
  local lc = start(server, lbdir)
  for _, b in ipairs(truth.bundles) do
    local buf = open(lc, lbdir .. '/' .. b.bundle)
    local right, first_wrong = 0, nil
    for _, p in ipairs(b.positions) do
      local line = vim.api.nvim_buf_get_lines(buf, p.lsp.line, p.lsp.line + 1, false)[1] or ''
      vim.api.nvim_win_set_cursor(0, { p.lsp.line + 1, vim.str_byteindex(line, p.lsp.character, true) })
      local params = vim.lsp.util.make_position_params()
      local hv = request(buf, lc, 'textDocument/hover', params)
      local source = p.original.source:match('[^/]+$')
      local want = source .. ':' .. p.original.line .. ':' .. (p.original.column + 1) .. '`'
      if hover_text(hv):find(want, 1, true) then
        right = right + 1
      elseif not first_wrong then
        first_wrong = vim.inspect(params.position) .. ' want ' .. want .. ', got ' .. hover_text(hv)
      end
    end
    check(('line breaks %s: %d/%d segments hovered from the cursor as their original place'):format(
      b.bundle, right, #b.positions), right == #b.positions, first_wrong)
  end
end

local ok, e = xpcall(main, debug.traceback)
if not ok then
  failed = failed + 1
  out('FAIL: uncaught error: ' .. tostring(e))
end
out(('summary: %d passed, %d failed'):format(passed, failed))
for _, client in ipairs(vim.lsp.get_active_clients()) do
  client.stop()
end
if failed == 0 then
  vim.cmd('qa!')
else
  vim.cmd('cq 1')
end
