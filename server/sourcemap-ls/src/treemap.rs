//! The bundle-composition picture: a treemap of packages → files, sized by bytes, as one self-contained HTML page
//! (`treemap.html`: the data inline and a few lines of script, no network). `explore --html` writes it; the language
//! server returns it with `sourcemap/composition` for editors to show (VS Code in a webview, where a click on a file
//! asks the editor to open that source).

use serde_json::{json, Value};
use sourcemap_core::bundle::composition::Composition;

/// `{name, size, children}` nodes: the bundle → packages (largest first) → their files; then the bytes no source
/// owns (`[unmapped]`, `[EOLs]`, `[sourceMappingURL]`). `names[i]` names source `i`.
pub fn tree(c: &Composition, names: &[String]) -> Value {
    let name = |id: sourcemap_core::SourceId| names[id.0 as usize].as_str();
    let mut children: Vec<Value> = c
        .packages(name)
        .into_iter()
        .map(|p| {
            json!({
                "name": p.name,
                "size": p.bytes,
                "children": p.files.iter().map(|&(f, b)| json!({"name": name(f), "size": b})).collect::<Vec<_>>(),
            })
        })
        .collect();
    for (label, bytes) in c.other_parts() {
        if bytes > 0 {
            children.push(json!({"name": label, "size": bytes}));
        }
    }
    json!({"name": "bundle", "size": c.total_bytes, "children": children})
}

/// The page for `tree`, titled `title`.
pub fn page(tree: &Value, title: &str) -> String {
    // `</` inside the JSON would end the script element.
    let data = tree.to_string().replace("</", "<\\/");
    let title = title
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    TEMPLATE
        .replace("__TITLE__", &title)
        .replace("__DATA__", &data)
}

const TEMPLATE: &str = include_str!("treemap.html");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_holds_the_data_and_cannot_be_closed_early() {
        let c = Composition {
            total_bytes: 10,
            mapped_bytes: 8,
            unmapped_bytes: 2,
            source_bytes: vec![8],
            ..Composition::default()
        };
        let names = vec!["node_modules/x/</script><b>.js".to_string()];
        let page = page(&tree(&c, &names), "a <b> & c");
        assert!(page.contains("<title>a &lt;b&gt; &amp; c</title>"));
        assert!(page.contains(r#""name":"node_modules/x""#), "{page}");
        assert!(
            !page.contains("</script><b>"),
            "the data cannot end the script element"
        );
        assert_eq!(page.matches("</script>").count(), 2);
    }
}
