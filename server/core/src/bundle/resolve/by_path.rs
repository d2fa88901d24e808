//! The bundle at a frame's path or under a root at its URL's path (longest tail first), and its map.

use super::{path_parts, GivenMap, PathFound, Place, Resolver};
use crate::bundle::hermes_bytecode::is_hermes_bytecode;
use crate::map::index::GeneratedPosition;
use crate::trace::stack::normalize_debug_id;
use std::path::{Path, PathBuf};

impl<P: Place> Resolver<'_, '_, P> {
    /// The bundle a frame's path names, and how it was found.
    pub(super) fn by_path(&mut self, file: &str, positions: &[GeneratedPosition]) -> PathFound {
        if file.starts_with("file:") {
            let local = url::Url::parse(file)
                .ok()
                .and_then(|u| u.to_file_path().ok())
                .filter(|p| self.place.is_file(p));
            if let Some(local) = local {
                return PathFound::One(local, format!("the file {file} names"));
            }
        }
        let roots = self.place.roots();
        let plain = file.split(['?', '#']).next().unwrap_or(file);
        if path_parts(file).is_none() {
            if let Some(root) = roots.iter().find(|r| self.place.is_file(&r.join(plain))) {
                let why = format!("the path {plain} under {}", self.place.shown(root));
                return PathFound::One(root.join(plain), why);
            }
            return PathFound::Nothing;
        }
        if Path::new(plain).is_absolute() && self.place.is_file(Path::new(plain)) {
            return PathFound::One(PathBuf::from(plain), format!("the path {plain}"));
        }
        // The path's tails under a root, longest first, before any search by name: the path tells same-named files
        // apart (`app:///b/test.min.js` is ROOT/b/test.min.js, not ROOT/a/test.min.js). Only a file that leads to a
        // map is taken here (a same-named source is not the bundle); the bare name is the search by name's.
        let what = if file.contains("://") {
            "the URL's path"
        } else {
            "the path's tail"
        };
        // The longest tail found: under every root that has it. Several roots holding the same path (two releases'
        // folders) are several candidates, which only evidence tells apart (`among`), never the roots' order.
        let mut found: Vec<(PathBuf, String)> = Vec::new();
        let mut found_tail: Option<String> = None;
        for (root, tail) in self.tails(file) {
            if !tail.contains('/') || found_tail.as_ref().is_some_and(|t| *t != tail) {
                continue;
            }
            let p = root.join(&tail);
            if !self.place.is_file(&p) {
                continue;
            }
            let Some((map, _)) = self.map_of(&p) else {
                continue;
            };
            // A tail is weaker than a path: a file whose text cannot hold the frames' positions (lines it does not
            // have, columns past its lines' ends) is another file that shares the tail.
            let impossible = self
                .text_evidence(&p, &map, positions)
                .is_some_and(|e| e == f64::NEG_INFINITY);
            if impossible || found.iter().any(|(q, _)| *q == p) {
                continue;
            }
            let why = format!("{what} {tail} under {}", self.place.shown(&root));
            found_tail = Some(tail);
            found.push((p, why));
        }
        match found.len() {
            0 => PathFound::Nothing,
            1 => {
                let (p, why) = found.pop().expect("one");
                PathFound::One(p, why)
            }
            _ => PathFound::Several(found),
        }
    }

    /// Where a frame's file may be under the roots, longest path first: a relative path as it is; an absolute path
    /// inside a root, relative to it; else every tail of its path ([`frame_path_parts`]: a URL's path, a path of
    /// another machine), down to its bare name.
    fn tails(&self, file: &str) -> Vec<(PathBuf, String)> {
        let plain = file.split(['?', '#']).next().unwrap_or(file);
        let roots = self.place.roots();
        let mut out = Vec::new();
        let Some(parts) = path_parts(file) else {
            return roots.into_iter().map(|r| (r, plain.to_string())).collect();
        };
        if Path::new(plain).is_absolute() {
            for root in &roots {
                let canonical = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
                let inside = [root, &canonical]
                    .into_iter()
                    .find_map(|r| Path::new(plain).strip_prefix(r).ok())
                    .map(|inside| inside.to_string_lossy().into_owned());
                if let Some(inside) = inside {
                    out.push((root.clone(), inside));
                }
            }
        }
        // A package's folder names it: a tail never drops `node_modules/<pkg>` (`/ci/proj/node_modules/some-lib/dist/
        // index.js` is not the root's own `dist/index.js`).
        let last = parts
            .iter()
            .rposition(|p| crate::fs::walk::is_dependency_dir(p))
            .map_or(parts.len(), |i| i + 1);
        for k in 0..parts.len().min(last) {
            let tail = parts[k..].join("/");
            // Next.js serves `.next/static/…` as `/_next/static/…` (its `assetPrefix` aside): the URL's `_next/` is
            // the project's `.next/` folder (Next.js docs, "Project structure" and `output: 'export'`).
            let next = (parts[k] == "_next").then(|| format!(".next/{}", parts[k + 1..].join("/")));
            for tail in next.into_iter().chain([tail]) {
                for root in &roots {
                    if !out.iter().any(|(r, t)| r == root && *t == tail) {
                        out.push((root.clone(), tail.clone()));
                    }
                }
            }
        }
        out
    }

    /// Where the frame's path (or its URL's path) would be under a root, the bundle is absent, and `PATH.map` is
    /// there: that map, whose bundle is the frame's file (its text is not at hand, so its fit is not checked). Only
    /// when no map is given (a given map is the user's word for the frames it names).
    pub(super) fn absent_bundle_map(&mut self, file: &str) -> Option<(P::Map, String)> {
        self.map_beside_tail(file, false)
    }

    /// [`Resolver::absent_bundle_map`]; with `bundle_here`, for a bundle found where the frame names it that leads to
    /// no map of its own.
    pub(super) fn map_beside_tail(
        &mut self,
        file: &str,
        bundle_here: bool,
    ) -> Option<(P::Map, String)> {
        if !self.asked.given.is_empty() {
            return None;
        }
        // A `file:` URL is a path of this machine or another (an Electron renderer's `file:///…/app.asar/…/x.js`
        // with its maps shipped apart): its tails are tried like any path's, unless it names a file here.
        let here = match file.starts_with("file:") {
            true => url::Url::parse(file)
                .ok()
                .and_then(|u| u.to_file_path().ok()),
            false => Some(PathBuf::from(file.split(['?', '#']).next().unwrap_or(file))),
        };
        if !bundle_here && here.is_some_and(|p| self.place.is_file(&p)) {
            return None;
        }
        for (root, tail) in self.tails(file) {
            let bundle = root.join(&tail);
            let mut map = bundle.clone().into_os_string();
            map.push(".map");
            let map = PathBuf::from(map);
            if self.place.is_file(&bundle) || !self.place.is_file(&map) {
                continue;
            }
            // Never a file outside the root (a `..` in the frame's path, a symlink out).
            let inside = std::fs::canonicalize(&map)
                .ok()
                .zip(std::fs::canonicalize(&root).ok())
                .is_some_and(|(m, r)| m.starts_with(r));
            if !inside {
                continue;
            }
            if let Some(m) = self.place.map_file(&map) {
                let why = format!(
                    "no bundle at {} under {}, and {} beside where it would be",
                    tail,
                    self.place.shown(&root),
                    self.place.shown(&map)
                );
                return Some((m, why));
            }
        }
        None
    }

    /// The map of a bundle found on disk, and how.
    pub(super) fn map_of(&mut self, bundle: &Path) -> Option<(P::Map, String)> {
        let given = self.asked.given;
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        // Only maps given have bundles to compare with (a pipeline's events give none: no path resolved per frame).
        if given.iter().any(|g| g.bundle.is_some()) {
            let this = canonical(bundle);
            if let Some(g) = given
                .iter()
                .find(|g| g.bundle.as_deref().map(canonical).as_ref() == Some(&this))
            {
                return Some((g.map.clone(), "the map given for it".into()));
            }
        }
        if given.is_empty() {
            return self
                .place
                .own_map(bundle)
                .map(|m| (m, "its sourceMappingURL or sidecar .map".into()));
        }
        let id = self.place.debug_id(bundle);
        let map_id = |g: &GivenMap<P::Map>| {
            self.place
                .index(&g.map)
                .debug_id
                .as_deref()
                .map(normalize_debug_id)
        };
        if let Some(id) = &id {
            if let Some(g) = given.iter().find(|g| map_id(g).as_ref() == Some(id)) {
                return Some((g.map.clone(), format!("its debugId {id} is a given map's")));
            }
        }
        let name = bundle
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // A given map whose bundle is known serves that bundle only (matched above): a file of the same name
        // elsewhere is another build's (`a/test.min.js` is not `b/test.min.js`, whose map was given).
        let naming: Vec<&GivenMap<P::Map>> = given
            .iter()
            .filter(|g| g.bundle.is_none() && g.names.contains(&name))
            .filter(|g| id.is_none() || map_id(g).is_none() || map_id(g) == id)
            .collect();
        let naming = if naming.len() > 1 {
            let bytecode = self
                .place
                .text(bundle)
                .is_some_and(|t| is_hermes_bytecode((*t).as_ref()));
            self.of_kind(naming, bytecode)
        } else {
            naming
        };
        if let [g] = naming[..] {
            return Some((
                g.map.clone(),
                "a map given names it (its file name or `file`)".into(),
            ));
        }
        self.place
            .own_map(bundle)
            .map(|m| (m, "its sourceMappingURL or sidecar .map".into()))
    }
}
