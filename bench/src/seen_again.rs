//! A crash seen again is a new event: the same exception and frames with an id of its own (Sentry's `event_id`, a
//! UUID as 32 hex digits: Sentry's developer docs, "Event Payloads"). The pipelines' repeated events get one, so no
//! two lines of a run are the same bytes (a pipeline that kept whole lines' answers would otherwise be measured on
//! what it never sees).

/// `event` (one line of JSON) as the `k`-th event of a run: its `event_id` made `k`'s, or when it has none, a member
/// `seen_again` first.
pub fn seen_again(event: &str, k: usize) -> String {
    const KEY: &str = "\"event_id\":\"";
    match event.find(KEY) {
        Some(at) if event.len() >= at + KEY.len() + 32 => {
            let value = at + KEY.len();
            format!("{}{k:032x}{}", &event[..value], &event[value + 32..])
        }
        _ => format!(
            "{{\"seen_again\":{k},{}",
            event.trim_start().strip_prefix('{').unwrap_or(event)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::seen_again;

    #[test]
    fn a_crash_seen_again_has_an_id_of_its_own() {
        let e = r#"{"event_id":"362296bee74b4f2693221a41c7cb0369","exception":{}}"#;
        assert_eq!(
            seen_again(e, 31),
            r#"{"event_id":"0000000000000000000000000000001f","exception":{}}"#
        );
        assert_eq!(
            seen_again(r#"{"exception":{}}"#, 2),
            r#"{"seen_again":2,"exception":{}}"#
        );
    }
}
