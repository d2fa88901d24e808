//! `validate` reads the bytecode React Native's own compilers write (`fixtures/hermes-rn`: bytecode 96 from
//! react-native 0.79's hermesc, 98 and 99 from `hermes-compiler`, each with `-O` and `-O0`): each compile's own map
//! fits its bytecode, checked function by function; the other compile's map of the same bundle misfits.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn validate(bytecode: &Path, map: &Path) -> (Value, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
        .args(["validate", "--json"])
        .arg(bytecode)
        .arg(map)
        .output()
        .unwrap();
    (
        serde_json::from_slice(&out.stdout).unwrap(),
        out.status.code().unwrap(),
    )
}

#[test]
fn each_react_native_compile_is_told_from_the_other() {
    let dist = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hermes-rn/dist");
    for version in ["96", "98", "99"] {
        let file = |level: &str, name: &str| dist.join(version).join(level).join(name);
        let bytes = std::fs::read(file("O", "index.android.bundle")).unwrap();
        assert_eq!(
            u32::from_le_bytes(bytes[8..12].try_into().unwrap()).to_string(),
            version
        );
        for (bytecode, map) in [("O", "O"), ("O0", "O0"), ("O", "O0"), ("O0", "O")] {
            let (v, code) = validate(
                &file(bytecode, "index.android.bundle"),
                &file(map, "index.android.bundle.map"),
            );
            let what = format!("bytecode {version} -{bytecode} with the -{map} map");
            let fits = &v["fit"]["bytecode"]["fits"];
            if bytecode == map {
                assert_eq!((code, fits), (0, &Value::Bool(true)), "{what}: {v}");
                assert!(
                    v["fit"]["bytecode"]["functions"].as_u64().unwrap() > 400,
                    "{what}: {v}"
                );
            } else {
                assert_eq!((code, fits), (1, &Value::Bool(false)), "{what}: {v}");
                assert!(
                    v["problems"][0]["message"]
                        .as_str()
                        .unwrap()
                        .contains("the map is another compile's"),
                    "{what}: {v}"
                );
            }
        }
    }
}
