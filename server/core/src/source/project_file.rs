//! A map's source name → the file in the user's project: the one rule the command line (text, `--json` `path`, code
//! frames, context lines), the pipeline and the language server (definition, hover, links) all use, and the one
//! place that keeps every read of a source inside what the user gave (`Containment`).
//!
//! A name is tried as each rule below says, best first ([`candidates`]); the first candidate that is a regular file
//! inside the allowed folders, symlinks followed, and that the rule's check admits, is the source's file
//! ([`find`]). The rules, each with where it comes from:
//! 1. **The user's overrides**, js-debug's `sourceMapPathOverrides` (`*` captures, `?:*` matches one segment without
//!    capturing, `${workspaceFolder}` in the target: vscode-js-debug `src/targets/sourcePathResolver.ts`).
//! 2. **webpack's namespace**: `webpack://NAMESPACE/./x` is `x` under the project (webpack's default
//!    `devtoolModuleFilenameTemplate` is `webpack://[namespace]/[resource-path]?[loaders]`, the resource path relative
//!    to `context`, the project folder; Next.js's namespace is `_N_E`, its webpack `output.uniqueName`), as
//!    js-debug's defaults say (`webpack:///./~/*` → `node_modules/*`, `webpack:////*` → `/*`, `webpack://?:*/*` →
//!    `${workspaceFolder}/*`). A name with a query (vue-loader's `?HASH`) is a module the loaders generated from the
//!    file (`CartView.vue?6112` is the compiled `<script setup>`, not the SFC): the query is dropped, and the file is
//!    taken only where its text is the map's copy (a guess, as rules 3, 6 and 7).
//! 3. **Turbopack's roots**: `turbopack:///[project]/x` is `x` under the project (Turbopack's `SOURCE_MAP_PREFIX`
//!    `turbopack:///` and its `[project]` file system, the project folder; `[turbopack]/…` and `[next]/…` are its
//!    runtime and Next's, never a project file).
//! 4. **`file:` URLs and absolute paths** as they are; an absolute path of another machine (Metro writes the build
//!    machine's) re-rooted: its tails of at least two components under each project folder.
//! 5. **Relative names against the map's folder** (ECMA-426: `sources` resolve against the map's URL).
//! 6. **Relative names against the bundle's folder**, for a map kept apart from its build (Vite's and Angular's
//!    `hidden` maps moved to a folder of their own: the names were written relative to where the map was made,
//!    beside its bundle).
//! 7. **Relative names against the project**: Angular's CLI writes `sources` relative to the workspace root
//!    (`src/app/cart.ts` from `dist/shop/browser/main.js.map`), and a map moved away from its build leaves `../../src/x.ts`
//!    pointing nowhere: the name, and the name without its leading `../`, under each project folder.
//!
//! Rules 1, 2, 4 and 5 are the path the map states (or the editor's rules before this module, js-debug's): what
//! that file is today is the callers' to judge (the map's copy, an edit of it, or another file). Rules 3, 6 and 7,
//! and rule 2 for a name with a query, are guesses at what the framework meant, taken only where the file's text is the map's copy of the source (or
//! the map carries none): a same-named file that is something else is never taken for the source
//! ([`Rule::needs_same_text`]).
//!
//! **Project folders** are the folders the caller names (the workspace folders, `--root`s, the working folder) and
//! the folders above the map (and its bundle), up to the outermost allowed folder, that hold a `package.json` or an
//! `angular.json`: a `.next/static/chunks/app/page.js.map` is in the project whose `package.json` is above `.next`.

use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The folders every read of a source stays inside, canonical (symlinks and `..` resolved).
#[derive(Debug, Clone, Default)]
pub struct Containment {
    folders: Vec<PathBuf>,
}

impl Containment {
    /// The folders given, canonicalized (a folder that does not exist admits nothing).
    pub fn new<I: IntoIterator<Item = PathBuf>>(folders: I) -> Containment {
        let mut out: Vec<PathBuf> = Vec::new();
        for f in folders {
            if let Ok(c) = std::fs::canonicalize(&f) {
                if !out.contains(&c) {
                    out.push(c);
                }
            }
        }
        Containment { folders: out }
    }

    /// These folders and `more`.
    pub fn with<I: IntoIterator<Item = PathBuf>>(&self, more: I) -> Containment {
        Containment::new(self.folders.iter().cloned().chain(more))
    }

    /// The allowed folders, canonical.
    pub fn folders(&self) -> &[PathBuf] {
        &self.folders
    }

    /// `path`'s real path when it is a regular file inside an allowed folder (the path as the system resolves it:
    /// `..`, absolute paths, symlinks out of the folder all land where they really are), else `None`.
    pub fn admit(&self, path: &Path) -> Option<PathBuf> {
        let real = std::fs::canonicalize(path).ok()?;
        (self.contains(&real) && real.is_file()).then_some(real)
    }

    /// Whether the real path `real` lies inside an allowed folder.
    pub fn contains(&self, real: &Path) -> bool {
        self.folders.iter().any(|f| real.starts_with(f))
    }

    /// The outermost allowed folder holding `dir` (canonical), if any.
    fn outermost_holding(&self, dir: &Path) -> Option<&Path> {
        self.folders
            .iter()
            .filter(|f| dir.starts_with(f))
            .min_by_key(|f| f.components().count())
            .map(PathBuf::as_path)
    }
}

/// Which rule found a candidate (see the module's list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rule {
    /// A user's override (rule 1).
    Override,
    /// webpack's `webpack://NAMESPACE/./x` under the project (rule 2).
    WebpackNamespace,
    /// webpack's `webpack://NAMESPACE/./x?QUERY` under the project: a module generated from `x` (rule 2).
    WebpackQuery,
    /// Turbopack's `[project]` under the project (rule 3).
    TurbopackProject,
    /// A `file:` URL or an absolute path, as it is (rule 4).
    Absolute,
    /// An absolute path of another machine, re-rooted under the project (rule 4).
    Rerooted,
    /// A relative name against the map's folder (rule 5).
    BesideMap,
    /// A relative name against the bundle's folder (rule 6).
    BesideBundle,
    /// A relative name under the project (rule 7).
    UnderProject,
}

impl Rule {
    /// Whether the rule is a guess that holds only where the file's text is the map's copy (or the map has none).
    pub fn needs_same_text(self) -> bool {
        // js-debug's webpack defaults and the re-rooting of another machine's paths were the editor's rules before
        // this module: what their file is today is judged by the callers' rules for today's files (an edit of the
        // build's copy is carried into, a decoy is not).
        // A webpack name with a query (`Rule::WebpackQuery`) is a module generated from the file, not the file.
        !matches!(
            self,
            Rule::Override
                | Rule::Absolute
                | Rule::BesideMap
                | Rule::Rerooted
                | Rule::WebpackNamespace
        )
    }
}

/// Where a map's names are tried.
#[derive(Debug, Clone, Default)]
pub struct SourceFolders<'a> {
    /// The map's folder (relative names resolve against it: ECMA-426).
    pub map_dir: Option<&'a Path>,
    /// The bundle's folder, when the map is known to serve a bundle elsewhere.
    pub bundle_dir: Option<&'a Path>,
    /// The caller's project folders (workspace folders, `--root`s, the working folder), best first.
    pub projects: &'a [PathBuf],
    /// js-debug style overrides, `(pattern, target)`, tried first.
    pub overrides: &'a [(String, String)],
}

/// js-debug's defaults for webpack (vscode-js-debug `src/configuration.ts`, `defaultSourceMapPathOverrides`).
const WEBPACK_DEFAULTS: &[(&str, &str)] = &[
    ("webpack:///./~/*", "${workspaceFolder}/node_modules/*"),
    ("webpack:////*", "/*"),
    ("webpack://?:*/*", "${workspaceFolder}/*"),
];

/// Turbopack's prefix of a source in the project (`turbopack:///[project]/lib/x.ts`; also written without the
/// scheme's slashes, or bare, by some versions).
const TURBOPACK_PROJECT: &[&str] = &[
    "turbopack:///[project]/",
    "turbopack://[project]/",
    "[project]/",
];

/// The candidate files for source name `name` (the `sources` entry with `sourceRoot` applied), best first, each with
/// the rule that made it; nothing is read but the project markers above the map.
pub fn candidates(
    name: &str,
    folders: &SourceFolders<'_>,
    containment: &Containment,
) -> Vec<(PathBuf, Rule)> {
    let mut out: Vec<(PathBuf, Rule)> = Vec::new();
    let projects = project_folders(folders, containment);
    let mut push = |p: PathBuf, rule: Rule| {
        let p = normalize(&p);
        if !out.iter().any(|(q, _)| *q == p) {
            out.push((p, rule));
        }
    };
    for (pattern, target) in folders.overrides {
        for p in apply_override(pattern, target, name, &projects) {
            push(PathBuf::from(p), Rule::Override);
        }
    }
    if name.starts_with("webpack:") {
        let plain = name.split(['?', '#']).next().unwrap_or(name);
        for (pattern, target) in WEBPACK_DEFAULTS {
            for p in apply_override(pattern, target, plain, &projects) {
                let rule = if plain != name {
                    Rule::WebpackQuery
                } else if target.starts_with("${workspaceFolder}") {
                    Rule::WebpackNamespace
                } else {
                    Rule::Absolute
                };
                push(PathBuf::from(p), rule);
            }
        }
        return out;
    }
    if let Some(rest) = TURBOPACK_PROJECT.iter().find_map(|p| name.strip_prefix(p)) {
        let rest =
            percent_encoding::percent_decode_str(rest.split(['?', '#']).next().unwrap_or(rest))
                .decode_utf8_lossy()
                .into_owned();
        for p in &projects {
            push(p.join(&rest), Rule::TurbopackProject);
        }
        return out;
    }
    if name.starts_with("file:") {
        if let Some(p) = url::Url::parse(name)
            .ok()
            .and_then(|u| u.to_file_path().ok())
        {
            push(p.clone(), Rule::Absolute);
            for suffix in tails(&p) {
                for f in &projects {
                    push(f.join(&suffix), Rule::Rerooted);
                }
            }
        }
        return out;
    }
    if name.contains("://") || name.starts_with("turbopack:") || name.starts_with('[') {
        // Another scheme (`[turbopack]/…`, `rsc://`, `http://`): no file of the project.
        return out;
    }
    let path = Path::new(name);
    if path.is_absolute() {
        push(path.to_path_buf(), Rule::Absolute);
        for suffix in tails(path) {
            for f in &projects {
                push(f.join(&suffix), Rule::Rerooted);
            }
        }
        return out;
    }
    if let Some(dir) = folders.map_dir {
        push(dir.join(name), Rule::BesideMap);
    }
    if let Some(dir) = folders.bundle_dir {
        push(dir.join(name), Rule::BesideBundle);
    }
    let climbed = without_leading_ups(name);
    for f in &projects {
        push(f.join(name), Rule::UnderProject);
        if climbed != name {
            push(f.join(climbed), Rule::UnderProject);
        }
    }
    out
}

/// A source's file: where it is (its real path) and the rule that found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectFile {
    /// The file's real path (canonical): where it is, symlinks followed.
    pub path: PathBuf,
    /// The path as the rule made it (lexically normal, symlinks kept): how the user's folders spell it.
    pub spelled: PathBuf,
    /// The rule that found it.
    pub rule: Rule,
}

/// The file of source `name`: the first candidate ([`candidates`]) that is a regular file inside `containment` and,
/// for a rule that guesses, whose text `same_text` admits (it says true when the map carries no copy). No byte
/// outside `containment` is read: candidates outside are not even opened.
pub fn find(
    name: &str,
    folders: &SourceFolders<'_>,
    containment: &Containment,
    mut same_text: impl FnMut(&Path) -> bool,
) -> Option<ProjectFile> {
    candidates(name, folders, containment)
        .into_iter()
        .find_map(|(p, rule)| {
            let real = containment.admit(&p)?;
            (!rule.needs_same_text() || same_text(&real)).then_some(ProjectFile {
                path: real,
                spelled: p,
                rule,
            })
        })
}

/// Whether a file's bytes are a map's copy of a source: equal, with `\r\n` read as `\n` (a checkout with Windows
/// line endings holds the same source).
pub fn same_text(file: &[u8], copy: &str) -> bool {
    file == copy.as_bytes() || text_hash(file) == text_hash(copy.as_bytes())
}

/// xxh3 of `bytes` with every `\r\n` read as `\n`: how a local file is compared with a map's copy of a source, here
/// and by the language server (which keeps the copies' hashes).
pub fn text_hash(bytes: &[u8]) -> u64 {
    if !bytes.contains(&b'\r') {
        return xxhash_rust::xxh3::xxh3_64(bytes);
    }
    let mut normalized = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if !(bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n')) {
            normalized.push(bytes[i]);
        }
        i += 1;
    }
    xxhash_rust::xxh3::xxh3_64(&normalized)
}

/// The project folders of `folders`: the caller's, then the folders above the map and the bundle (nearest first)
/// that hold a `package.json` or an `angular.json`, never above the outermost allowed folder holding them.
fn project_folders(folders: &SourceFolders<'_>, containment: &Containment) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = folders.projects.iter().map(|p| normalize(p)).collect();
    for dir in [folders.map_dir, folders.bundle_dir].into_iter().flatten() {
        let Ok(real) = std::fs::canonicalize(dir) else {
            continue;
        };
        let Some(top) = containment.outermost_holding(&real) else {
            continue;
        };
        for a in real.ancestors() {
            if !a.starts_with(top) {
                break;
            }
            let marked = ["package.json", "angular.json"]
                .iter()
                .any(|m| a.join(m).is_file());
            if marked && !out.iter().any(|p| p == a) {
                out.push(a.to_path_buf());
            }
        }
    }
    out
}

/// `path`'s tails of at least two components (`app/src/a.js`, then `src/a.js`; a bare file name names too many files
/// to be trusted).
fn tails(path: &Path) -> Vec<PathBuf> {
    let parts: Vec<Component<'_>> = path
        .components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .collect();
    (1..parts.len().saturating_sub(1))
        .map(|skip| parts[skip..].iter().collect())
        .collect()
}

/// `name` without its leading `./`, `../` and `/` segments.
fn without_leading_ups(name: &str) -> &str {
    let mut rest = name;
    loop {
        if let Some(r) = rest.strip_prefix("../").or_else(|| rest.strip_prefix("./")) {
            rest = r;
        } else if let Some(r) = rest.strip_prefix('/') {
            rest = r;
        } else {
            return rest;
        }
    }
}

/// Lexically removes `.` and `..` components.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The regular expression of an override pattern, compiled once per pattern (symbolicating a long log resolves
/// thousands of sources; building the expressions dominated it). Shared behind an `Arc`: a cloned `Regex` gets a
/// pool of its own, and building a search cache on every call was then 3 % of a 20,000-frame log.
fn override_regex(pattern: &str) -> Option<Arc<regex::Regex>> {
    type Compiled = std::collections::HashMap<String, Option<Arc<regex::Regex>>>;
    static COMPILED: Mutex<Option<Compiled>> = Mutex::new(None);
    let mut compiled = COMPILED.lock().unwrap_or_else(|e| e.into_inner());
    let compiled = compiled.get_or_insert_with(Default::default);
    if let Some(re) = compiled.get(pattern) {
        return re.clone();
    }
    // Settings can change many times in a session; the table stays small.
    if compiled.len() > 256 {
        compiled.clear();
    }
    let re = compile_override(pattern).map(Arc::new);
    compiled.insert(pattern.to_string(), re.clone());
    re
}

fn compile_override(pattern: &str) -> Option<regex::Regex> {
    let mut re = String::from("^");
    let mut rest = pattern;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("?:*") {
            re.push_str("[^/]*");
            rest = r;
        } else if let Some(r) = rest.strip_prefix('*') {
            re.push_str("(.*)");
            rest = r;
        } else {
            let c = rest.chars().next().expect("non-empty");
            re.push_str(&regex::escape(&c.to_string()));
            rest = &rest[c.len_utf8()..];
        }
    }
    re.push('$');
    regex::Regex::new(&re).ok()
}

/// Applies one js-debug style override; empty when the pattern does not match. `${workspaceFolder}` is each project
/// folder in turn.
fn apply_override(pattern: &str, target: &str, name: &str, projects: &[PathBuf]) -> Vec<String> {
    let Some(re) = override_regex(pattern) else {
        return Vec::new();
    };
    let Some(caps) = re.captures(name) else {
        return Vec::new();
    };
    let captured = caps.get(1).map_or("", |m| m.as_str());
    let substituted = target.replacen('*', captured, 1);
    if substituted.contains("${workspaceFolder}") {
        projects
            .iter()
            .map(|f| substituted.replace("${workspaceFolder}", &f.to_string_lossy()))
            .collect()
    } else {
        vec![substituted]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for (p, text) in files {
            let p = d.path().join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        d
    }

    fn found(
        d: &Path,
        name: &str,
        map_dir: &str,
        bundle_dir: Option<&str>,
        copy: Option<&str>,
    ) -> Option<(String, Rule)> {
        let map_dir = d.join(map_dir);
        let bundle_dir = bundle_dir.map(|b| d.join(b));
        let folders = SourceFolders {
            map_dir: Some(&map_dir),
            bundle_dir: bundle_dir.as_deref(),
            projects: &[],
            overrides: &[],
        };
        let containment = Containment::new([d.to_path_buf()]);
        let root = std::fs::canonicalize(d).unwrap();
        find(name, &folders, &containment, |p| {
            copy.is_none_or(|c| same_text(&std::fs::read(p).unwrap(), c))
        })
        .map(|f| {
            (
                f.path.strip_prefix(&root).unwrap().display().to_string(),
                f.rule,
            )
        })
    }

    /// Each framework's spelling of a project source reaches the project's file, by the rule that says so.
    #[test]
    fn each_frameworks_names_reach_the_project_file() {
        let d = tree(&[
            ("package.json", "{}"),
            ("lib/cart.ts", "export class Cart {}\n"),
            ("src/app/cart.ts", "export class AppCart {}\n"),
            ("src/x.ts", "x\n"),
            (".next/static/chunks/app/page.js.map", "{}"),
            ("dist/shop/browser/main.js.map", "{}"),
            ("sourcemaps/index.js.map", "{}"),
        ]);
        let d = d.path();
        let chunks = ".next/static/chunks/app";
        let cases = [
            (
                "webpack://_N_E/./lib/cart.ts",
                chunks,
                None,
                "lib/cart.ts",
                Rule::WebpackNamespace,
            ),
            (
                "webpack:///./lib/cart.ts?4f2a",
                chunks,
                None,
                "lib/cart.ts",
                Rule::WebpackQuery,
            ),
            (
                "turbopack:///[project]/lib/cart.ts",
                chunks,
                None,
                "lib/cart.ts",
                Rule::TurbopackProject,
            ),
            (
                "src/app/cart.ts",
                "dist/shop/browser",
                None,
                "src/app/cart.ts",
                Rule::UnderProject,
            ),
            (
                "../../src/x.ts",
                "sourcemaps",
                Some("dist/assets"),
                "src/x.ts",
                Rule::BesideBundle,
            ),
            (
                "../../src/x.ts",
                "sourcemaps",
                None,
                "src/x.ts",
                Rule::UnderProject,
            ),
            (
                "../../../../lib/cart.ts",
                chunks,
                None,
                "lib/cart.ts",
                Rule::BesideMap,
            ),
        ];
        for (name, map_dir, bundle_dir, want, rule) in cases {
            assert_eq!(
                found(d, name, map_dir, bundle_dir, None),
                Some((want.to_string(), rule)),
                "{name} from {map_dir}"
            );
        }
        // Runtime sources are no project file.
        for name in [
            "turbopack:///[turbopack]/shared/runtime-utils.ts",
            "[next]/x.js",
            "rsc://React/Server/x.js",
        ] {
            assert_eq!(found(d, name, chunks, None, None), None, "{name}");
        }
    }

    /// A guess is taken only where the file is the map's copy; the path the map states is taken as it is (its text
    /// is judged by the callers' rules for today's files).
    #[test]
    fn a_guess_needs_the_maps_text_and_a_stated_path_does_not() {
        let d = tree(&[
            ("package.json", "{}"),
            ("lib/cart.ts", "export class Cart {}\r\n"),
            ("dist/a.js.map", "{}"),
            ("dist/b.ts", "today\n"),
        ]);
        let d = d.path();
        let name = "turbopack:///[project]/lib/cart.ts";
        assert!(found(d, name, "dist", None, Some("export class Cart {}\n")).is_some());
        assert_eq!(found(d, name, "dist", None, Some("something else\n")), None);
        assert_eq!(
            found(d, "b.ts", "dist", None, Some("the build's\n")),
            Some(("dist/b.ts".into(), Rule::BesideMap))
        );
        // vue-loader's `?HASH` module is generated from the file: the file only where it is the module's text.
        let generated = "webpack://shop/./lib/cart.ts?6112";
        assert_eq!(found(d, generated, "dist", None, Some("compiled\n")), None);
        assert_eq!(
            found(d, generated, "dist", None, Some("export class Cart {}\n")),
            Some(("lib/cart.ts".into(), Rule::WebpackQuery))
        );
        assert_eq!(
            found(
                d,
                "webpack://shop/./lib/cart.ts",
                "dist",
                None,
                Some("compiled\n")
            ),
            Some(("lib/cart.ts".into(), Rule::WebpackNamespace))
        );
    }

    /// No rule reads outside the allowed folders: `..` out, absolute paths, `file:` URLs and symlinks out are not
    /// even opened.
    #[test]
    fn nothing_outside_the_allowed_folders_is_a_source() {
        let outside = tree(&[("secret.txt", "secret\n")]);
        let secret = outside.path().join("secret.txt");
        let d = tree(&[("store/app.js.map", "{}")]);
        std::os::unix::fs::symlink(&secret, d.path().join("store/link.txt")).unwrap();
        let store = d.path().join("store");
        let up = format!(
            "../../{}/secret.txt",
            outside.path().file_name().unwrap().to_string_lossy()
        );
        let names = [
            secret.display().to_string(),
            format!("file://{}", secret.display()),
            "link.txt".to_string(),
            up,
            "webpack:////etc/hostname".to_string(),
            "/etc/hostname".to_string(),
        ];
        let containment = Containment::new([store.clone()]);
        for name in &names {
            let folders = SourceFolders {
                map_dir: Some(&store),
                ..Default::default()
            };
            assert_eq!(find(name, &folders, &containment, |_| true), None, "{name}");
        }
    }
}
