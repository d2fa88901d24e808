//! The code of a single-file component (`.vue`, `.svelte`): its `<script>` blocks, read in place.
//!
//! A Vue or Svelte component's source, as its map carries it (`sourcesContent` is the whole file, checked on
//! `fixtures/spa-frameworks`), is markup with the component's code in `<script>` blocks (Vue: `<script>` and
//! `<script setup>`, `lang="ts"` for TypeScript, vuejs/core `packages/compiler-sfc/src/parse.ts`; Svelte 5:
//! `<script>` and `<script module>`, `lang="ts"`, sveltejs/svelte `src/compiler/phases/1-parse/read/script.js`).
//! Parsed as it is, the file is no JavaScript; so everything outside the blocks is blanked, keeping every position
//! where it was (a character becomes whitespace of the same UTF-8 and UTF-16 length, line breaks stay), and the
//! text is read as one script of the blocks' language. A position outside the blocks (the template: its handlers are
//! the compiler's functions, not the user's) is not answered from them.

use std::ops::Range;

/// A component's code blanked around its `<script>` blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentCode {
    /// The file's text with everything outside the blocks' contents blanked (same length, same positions).
    pub text: String,
    /// Whether a block says `lang="ts"` (or `lang="typescript"`): read as TypeScript.
    pub typescript: bool,
    /// The blocks' contents, as byte ranges of the text.
    pub blocks: Vec<Range<usize>>,
}

/// Whether a source named `name` is a single-file component (its query and fragment aside).
pub fn is_component(name: &str) -> bool {
    let path = name.split(['?', '#']).next().unwrap_or(name);
    path.ends_with(".vue") || path.ends_with(".svelte")
}

/// The `<script>` blocks of a component's `text`; `None` when it has none.
pub fn component_code(text: &str) -> Option<ComponentCode> {
    let lower = text.to_ascii_lowercase();
    let mut blocks = Vec::new();
    let mut typescript = false;
    let mut at = 0;
    while let Some(found) = lower[at..].find("<script") {
        let open = at + found;
        let after_name = open + "<script".len();
        // `<scripts>` or `<script-x>` is another element.
        if !lower[after_name..].starts_with(|c: char| c.is_ascii_whitespace() || c == '>') {
            at = after_name;
            continue;
        }
        if inside_comment(&lower, open) {
            at = after_name;
            continue;
        }
        let Some(tag_end) = tag_end(&lower, after_name) else {
            break;
        };
        let attributes = &lower[after_name..tag_end];
        typescript |= ["lang=\"ts\"", "lang='ts'", "lang=ts", "lang=\"typescript\""]
            .iter()
            .any(|l| attributes.contains(l));
        let content = tag_end + 1;
        let Some(close) = lower[content..].find("</script") else {
            break;
        };
        blocks.push(content..content + close);
        at = content + close;
    }
    if blocks.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for b in &blocks {
        blank_into(&mut out, &text[copied..b.start]);
        out.push_str(&text[b.clone()]);
        copied = b.end;
    }
    blank_into(&mut out, &text[copied..]);
    debug_assert_eq!(out.len(), text.len());
    Some(ComponentCode {
        text: out,
        typescript,
        blocks,
    })
}

/// The `>` that ends the tag whose attributes start at `from`, quoted values skipped.
fn tag_end(lower: &str, from: usize) -> Option<usize> {
    let mut quote = None;
    for (i, c) in lower[from..].char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '>') => return Some(from + i),
            _ => {}
        }
    }
    None
}

/// Whether `at` lies inside an HTML comment (`<!-- … -->`).
fn inside_comment(lower: &str, at: usize) -> bool {
    let before = &lower[..at];
    before
        .rfind("<!--")
        .is_some_and(|open| !before[open..].contains("-->"))
}

/// `text` as whitespace of the same UTF-8 and UTF-16 length: line breaks kept (the map's lines: `\n`, `\r`, U+2028,
/// U+2029), ASCII as spaces, a 2-byte character as U+00A0, a 3-byte one as U+3000 (both JavaScript whitespace), a
/// 4-byte one (two UTF-16 units) as two U+00A0.
fn blank_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '\n' | '\r' | '\u{2028}' | '\u{2029}' => out.push(c),
            c if c.is_ascii() => out.push(' '),
            c => match c.len_utf8() {
                2 => out.push('\u{a0}'),
                3 => out.push('\u{3000}'),
                _ => out.push_str("\u{a0}\u{a0}"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_blocks_are_kept_in_place_and_the_rest_is_blanked() {
        let sfc = "<template>\n  <p>é {{ a }}</p>\n</template>\n<script setup lang=\"ts\">\nconst a = 1\n</script>\n\
                   <!-- <script>nope</script> -->\n<script>\nexport default {}\n</script>\n<style>p{}</style>\n";
        let code = component_code(sfc).unwrap();
        assert!(code.typescript);
        assert_eq!(code.text.len(), sfc.len());
        let kept: Vec<&str> = code.blocks.iter().map(|b| &sfc[b.clone()]).collect();
        assert_eq!(kept, ["\nconst a = 1\n", "\nexport default {}\n"]);
        // Lines and UTF-16 columns are where they were.
        for (a, b) in sfc.lines().zip(code.text.lines()) {
            assert_eq!(a.encode_utf16().count(), b.encode_utf16().count(), "{a:?}");
        }
        assert!(code.text.contains("const a = 1"));
        assert!(!code.text.contains("template") && !code.text.contains("nope"));
        assert_eq!(component_code("<template><p/></template>"), None);
        assert!(is_component("src/App.vue?6112") && is_component("src/App.svelte"));
        assert!(!is_component("src/app.ts"));
    }
}
