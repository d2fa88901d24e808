//! A debug ID's one spelling. A map's `debugId` / `debug_id`, a bundle's `//# debugId=`, a trace's `debugId=` and an
//! event's `debug_meta` name one build in upper or lower case, with or without dashes (the event test in
//! `trace::document` holds an SDK's uppercase, dashed form), so they are compared in this form.

/// The debug ID lowercased, its dashes dropped.
pub fn normalize_debug_id(id: &str) -> String {
    id.chars()
        .filter(|c| *c != '-')
        .collect::<String>()
        .to_ascii_lowercase()
}
