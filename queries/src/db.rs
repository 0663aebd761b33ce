//! The salsa database shared by both tools.

use std::sync::{Arc, Mutex};

/// One salsa database. Cloning is cheap and clones share storage: each rayon worker gets
/// its own clone (see `ARCHITECTURE.md`).
#[salsa::db]
#[derive(Clone, Default)]
pub struct Database {
    storage: salsa::Storage<Self>,
}

#[salsa::db]
impl salsa::Database for Database {}

/// A query execution seen by the event log: the query's name and the id of its key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Executed {
    pub query: String,
    pub key: salsa::Id,
}

/// Records which queries salsa actually executed, for incrementality tests and for
/// `--verbose` diagnostics in watch mode.
#[derive(Clone, Default)]
pub struct ExecutionLog {
    keys: Arc<Mutex<Vec<salsa::DatabaseKeyIndex>>>,
}

impl ExecutionLog {
    /// Takes the log so far, naming each query with the database's ingredient names.
    pub fn take(&self, db: &Database) -> Vec<Executed> {
        let keys = std::mem::take(&mut *self.keys.lock().expect("log lock poisoned"));
        keys.into_iter()
            .map(|k| Executed {
                query: salsa::Database::ingredient_debug_name(db, k.ingredient_index())
                    .into_owned(),
                key: k.key_index(),
            })
            .collect()
    }
}

impl Database {
    /// A database whose query executions are recorded in the returned log.
    pub fn with_execution_log() -> (Self, ExecutionLog) {
        let log = ExecutionLog::default();
        let keys = log.keys.clone();
        let storage = salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
            if let salsa::EventKind::WillExecute { database_key } = event.kind {
                keys.lock().expect("log lock poisoned").push(database_key);
            }
        })));
        (Database { storage }, log)
    }
}
