//! `soil_hash` recomputed over a root held in memory: a call chain deeper than any stack
//! allows recursion for, a cycle (which has no content hash), and helpers hashed one by
//! one.

use lockgraph_queries::db::Database;
use lockgraph_queries::soil::engine::{Definition, Project};
use lockgraph_queries::soil::soil_hash::{PrivateFile, computed_soil_hashes};
use salsa::Setter;
use std::collections::BTreeMap;

fn soil(name: &str, body: &str) -> Vec<u8> {
    format!("{name} : (x : I64) -> I64\n{name} x = {body}\n").into_bytes()
}

fn root(defs: &[(String, Vec<u8>)], privates: Vec<(&str, &str)>) -> Database {
    let mut db = Database::default();
    let list: Vec<Definition> = defs
        .iter()
        .map(|(path, soil)| {
            // A function is known by its spec; a front matter is all this one needs.
            let name = path.rsplit('/').next().unwrap();
            let tr = format!("---\nname: {name}\n---\n\n# {name}\n").into_bytes();
            Definition::new(&db, path.clone(), Some(tr), None, Some(soil.clone()))
        })
        .collect();
    let files = privates
        .into_iter()
        .map(|(module, text)| PrivateFile::new(&db, module.into(), text.as_bytes().to_vec()))
        .collect();
    let project = Project::new(&db, list, BTreeMap::new());
    project.set_private_files(&mut db).to(files);
    db
}

#[test]
fn a_chain_deeper_than_a_stack_is_hashed() {
    const DEPTH: usize = 20_000;
    let defs: Vec<(String, Vec<u8>)> = (0..DEPTH)
        .map(|i| {
            let body = if i == 0 {
                "x".to_owned()
            } else {
                format!("d{} x", i - 1)
            };
            (format!("m/d{i}"), soil(&format!("d{i}"), &body))
        })
        .collect();
    // On a thread with a 1 MiB stack, where recursing callee by callee would overflow.
    let hashes = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let db = root(&defs, Vec::new());
            computed_soil_hashes(&db).clone()
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(hashes.len(), DEPTH);
    assert!(hashes.values().all(Result::is_ok));
    assert_ne!(hashes["m/d0"], hashes["m/d1"]);
}

#[test]
fn a_cycle_and_what_calls_it_have_no_hash_and_say_why() {
    let defs = vec![
        ("m/a".to_owned(), soil("a", "b x")),
        ("m/b".to_owned(), soil("b", "a x")),
        ("m/c".to_owned(), soil("c", "a x + 1")),
        ("m/d".to_owned(), soil("d", "x + 1")),
    ];
    let db = root(&defs, Vec::new());
    let hashes = computed_soil_hashes(&db);
    for path in ["m/a", "m/b", "m/c"] {
        let why = hashes[path].as_ref().unwrap_err();
        assert!(why.contains("call each other"), "{path}: {why}");
    }
    assert!(hashes["m/d"].is_ok());
}

#[test]
fn each_helper_is_hashed_on_its_own_and_moves_its_owners() {
    let defs = vec![
        ("m/f".to_owned(), soil("f", "_twice x")),
        ("m/g".to_owned(), soil("g", "_inc x")),
    ];
    let helpers =
        "_twice : (x : I64) -> I64\n_twice x = x * 2\n\n_inc : (x : I64) -> I64\n_inc x = x + 1\n";
    let mut db = root(&defs, vec![("m", helpers)]);
    let before = computed_soil_hashes(&db).clone();
    assert!(before["m/f"].is_ok() && before["m/g"].is_ok());
    let file = Project::get(&db).private_files(&db)[0];
    file.set_bytes(&mut db)
        .to(helpers.replace("x + 1", "x + 2").into_bytes());
    let after = computed_soil_hashes(&db).clone();
    assert_eq!(before["m/f"], after["m/f"], "f's helper did not change");
    assert_ne!(before["m/g"], after["m/g"], "g's helper did");
}
