use super::*;
use crate::internal::map::vlq::{encode_signed, encode_unsigned};

/// One VLQ field of a test item.
#[derive(Clone, Copy)]
enum V {
    U(u64),
    S(i64),
}
use V::{S, U};

fn encode(items: &[&[V]]) -> String {
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        for v in item.iter() {
            match *v {
                U(u) => encode_unsigned(u, &mut out),
                S(s) => encode_signed(s, &mut out),
            }
        }
    }
    String::from_utf8(out).unwrap()
}

fn names(list: &[&str]) -> NameTable {
    NameTable::new(list).unwrap()
}

/// names: 0 outer, 1 inner, 2 function, 3 block, 4 x, 5 _x
///
/// Original (source 0):
///   #0 0:0–20:0 (global, no name)
///     #1 1:0–10:1 function `outer`, stack frame, variable x
///       #2 2:2–5:3 function `inner`, stack frame
///         #3 3:4–4:5 block (not a stack frame)
///     #4 12:0–14:1 unnamed stack frame
/// Generated (line 0):
///   0:0–0:100 def #0
///     0:10–0:80 def #1
///       0:20–0:40 def #2
///         0:25–0:30 def #3
///     0:85–0:95 def #4
fn nested() -> DecodedScopes {
    let s = encode(&[
        &[U(1), U(0), U(0), U(0)],
        &[U(1), U(7), U(1), U(0), S(0), S(2)],
        &[U(3), S(4)],
        &[U(1), U(7), U(1), U(2), S(1), S(0)],
        &[U(1), U(2), U(1), U(4), S(1)],
        &[U(2), U(1), U(5)],
        &[U(2), U(1), U(3)],
        &[U(2), U(5), U(1)],
        &[U(1), U(4), U(2), U(0)],
        &[U(2), U(2), U(1)],
        &[U(2), U(6), U(0)],
        &[U(4), U(2), U(0), S(0)],
        &[U(4), U(2), U(10), S(1)],
        &[U(6), U(6)],
        &[U(4), U(2), U(10), S(1)],
        &[U(4), U(2), U(5), S(1)],
        &[U(5), U(5)],
        &[U(5), U(10)],
        &[U(5), U(40)],
        &[U(4), U(6), U(5), S(1)],
        &[U(5), U(10)],
        &[U(5), U(5)],
    ]);
    decode_scopes(
        &s,
        &names(&["outer", "inner", "function", "block", "x", "_x"]),
        1,
    )
    .unwrap()
}

#[test]
fn nested_structure_decodes() {
    let d = nested();
    let flat = d.flattened();
    assert_eq!(flat.len(), 5);
    assert_eq!(flat[1].name.as_deref(), Some("outer"));
    assert_eq!(flat[1].variables, ["x"]);
    assert_eq!((flat[2].start, flat[2].end), ((2, 2), (5, 3)));
    assert_eq!(flat[3].kind.as_deref(), Some("block"));
    assert_eq!((flat[4].start, flat[4].end), ((12, 0), (14, 1)));
    let top = &d.ranges[0];
    assert_eq!((top.start, top.end), ((0, 0), (0, 100)));
    assert_eq!(top.children.len(), 2);
    let outer = &top.children[0];
    assert_eq!(
        outer.bindings,
        [vec![Binding {
            from: (0, 10),
            binding: Some("_x".into())
        }]]
    );
    assert_eq!(outer.children[0].children[0].start, (0, 25));
    assert_eq!(top.children[1].start, (0, 85));
}

#[test]
fn function_name_at_picks_the_innermost_named_function() {
    let d = nested();
    // Inside the block range: the block is not a stack frame, so its enclosing `inner`.
    assert_eq!(d.function_name_at(0, 27), Some("inner"));
    assert_eq!(d.function_name_at(0, 20), Some("inner"));
    assert_eq!(d.function_name_at(0, 39), Some("inner"));
    // End is exclusive: 0:40 is back in `outer`.
    assert_eq!(d.function_name_at(0, 40), Some("outer"));
    assert_eq!(d.function_name_at(0, 10), Some("outer"));
    // Global range only: not a stack frame.
    assert_eq!(d.function_name_at(0, 5), None);
    assert_eq!(d.function_name_at(0, 82), None);
    // An unnamed stack frame gives no name, and the global around it has none either.
    assert_eq!(d.function_name_at(0, 90), None);
}

#[test]
fn function_name_at_outside_every_range() {
    let d = nested();
    assert_eq!(d.function_name_at(0, 100), None);
    assert_eq!(d.function_name_at(1, 0), None);
    assert_eq!(d.function_name_at(7, 30), None);
    assert_eq!(DecodedScopes::default().function_name_at(0, 0), None);
}

#[test]
fn ranges_across_lines_and_call_site() {
    // Scope #0 `f` with variables a, b; a range on lines 2–4 inlining it, called at source 0 5:7.
    // names: 0 f, 1 a, 2 b, 3 _a, 4 _b
    let s = encode(&[
        &[U(1), U(5), U(0), U(0), S(0)],
        &[U(3), S(1), S(1)],
        &[U(2), U(3), U(0)],
        &[U(4), U(7), U(2), U(4), S(0)],
        &[U(6), U(4), U(0)],
        // b: unavailable from 2:4, then `_b` from 3:1, then unavailable from 3:6.
        &[U(7), U(1), U(1), U(1), U(5), U(0), U(5), U(0)],
        &[U(8), U(0), U(5), U(7)],
        &[U(5), U(2), U(3)],
    ]);
    let d = decode_scopes(&s, &names(&["f", "a", "b", "_a", "_b"]), 1).unwrap();
    let r = &d.ranges[0];
    assert_eq!((r.start, r.end), ((2, 4), (4, 3)));
    assert_eq!(r.definition, Some(0));
    assert_eq!(r.stack_frame_type, StackFrameType::Original);
    assert_eq!(r.call_site, Some((0, 5, 7)));
    assert_eq!(
        r.bindings,
        [
            vec![Binding {
                from: (2, 4),
                binding: Some("_a".into())
            }],
            vec![
                Binding {
                    from: (2, 4),
                    binding: None
                },
                Binding {
                    from: (3, 1),
                    binding: Some("_b".into())
                },
                Binding {
                    from: (3, 6),
                    binding: None
                },
            ],
        ]
    );
    assert_eq!(d.function_name_at(3, 0), Some("f"));
    assert_eq!(d.function_name_at(2, 3), None);
    assert_eq!(d.function_name_at(4, 3), None);
}

#[test]
fn hidden_frames_unknown_items_and_empty_entries() {
    let s = encode(&[
        &[U(0)],
        &[U(1), U(0), U(0), U(0)],
        &[U(2), U(1), U(0)],
        &[U(4), U(0xc), U(3)],
        &[U(99), U(7), S(-3)],
        &[U(5), U(1)],
    ]);
    let d = decode_scopes(&s, &NameTable::default(), 3).unwrap();
    assert_eq!(d.scopes.len(), 3);
    assert!(d.scopes[0].is_none() && d.scopes[1].is_some() && d.scopes[2].is_none());
    assert_eq!(d.ranges[0].stack_frame_type, StackFrameType::Hidden);
    assert_eq!((d.ranges[0].start, d.ranges[0].end), ((0, 3), (0, 4)));
    assert_eq!(
        decode_scopes("", &NameTable::default(), 2).unwrap().scopes,
        [None, None]
    );
}

#[test]
fn invalid_input_is_an_error() {
    let n = names(&["a"]);
    for (what, s) in [
        ("end without start", "CAA"),
        ("unterminated scope", "BAAA"),
        ("unterminated range", "EAA"),
        ("range end without start", "FA"),
        ("name out of range", "BBAAC,CAA"),
        ("negative name", "BBAAD,CAA"),
        ("missing field", "BA,CAA"),
        ("bad digit", "BAA*,CAA"),
        ("unterminated VLQ", "BAAg"),
        ("more trees than sources", "BAAA,CAA,BAAA,CAA"),
        ("variables outside scope", "DA"),
        ("definition out of range", "ECAA,FA"),
        ("hidden without stack frame", "EIA,FA"),
        ("bindings without definition", "EAA,GB,FA"),
        ("binding count mismatch", "BAAA,CAA,ECAA,GB,FA"),
        ("binding out of range", "BAAA,DA,CAA,ECAA,GE,FA"),
        ("sub-range without binding", "BAAA,DA,CAA,ECAA,HAAAA,FA"),
        ("call site source", "EAA,IEAA,FA"),
        ("scope after range", "EAA,FA,BAAA,CAA"),
        ("range end with three values", "EAA,FAAA"),
        ("range inside scope", "BAAA,EAA,FA,CAA"),
        ("overflow", "BAA//////H,CAA"),
    ] {
        assert!(decode_scopes(s, &n, 1).is_err(), "{what}: {s:?}");
    }
}

#[test]
fn never_panics_on_short_inputs() {
    let alphabet = b"ABCDEFGHIgz/,";
    let n = names(&["a", "b"]);
    let mut buf = Vec::new();
    for len in 1..=4u32 {
        for mut k in 0..alphabet.len().pow(len) {
            buf.clear();
            for _ in 0..len {
                buf.push(alphabet[k % alphabet.len()]);
                k /= alphabet.len();
            }
            let s = std::str::from_utf8(&buf).unwrap();
            let _ = decode_scopes(s, &n, 2).map(|d| d.function_name_at(0, 0).map(str::len));
        }
    }
}
