//! The salsa queries over a file, and [`Tracked`], the [`FileInputs`] that reads through
//! the database. A query that runs a computation shared with the one-shot run hands it a
//! `Tracked`, so salsa records what the value depends on and reuses it in the next
//! revision.

use super::compute::{active_rules, languages_of, span_index_of, state_of, view_hits_of, views_of};
use super::file_report::Interner;
use super::file_report::assemble;
use super::place::Placer;
use super::{
    EntryState, FileError, FileInputs, FileReport, Placed, RawHit, Settings, Setup, Source,
    SourceFile,
};
use crate::copy::extract::Format;
use crate::copy::language::Evidence;
use crate::copy::lockfile::{Entry, SpanIndex};
use crate::copy::view::View;
use crate::hash::ContentHash;
use crate::text::LineIndex;
use std::collections::BTreeSet;

/// A file's inputs and values read through the database's queries.
pub(super) struct Tracked<'db> {
    db: &'db dyn salsa::Database,
    file: SourceFile,
}

impl FileInputs for Tracked<'_> {
    fn format(&self) -> Format {
        self.file.format(self.db)
    }
    fn source(&self) -> &Source {
        self.file.source(self.db)
    }
    fn entry(&self) -> Option<&Entry> {
        self.file.entry(self.db).as_ref()
    }
    fn setup(&self) -> &Setup {
        Settings::get(self.db).setup(self.db)
    }
    fn locale(&self) -> Option<&str> {
        self.file.locale(self.db).as_deref()
    }
    fn entry_state(&self) -> EntryState {
        entry_state(self.db, self.file)
    }
    fn line_index(&self) -> &LineIndex {
        line_index(self.db, self.file)
    }
    fn views(&self) -> &Result<Vec<View>, FileError> {
        views(self.db, self.file)
    }
    fn span_index(&self) -> &Result<Option<SpanIndex>, FileError> {
        span_index(self.db, self.file)
    }
    fn languages(&self) -> &BTreeSet<String> {
        languages(self.db, self.file)
    }
    fn known_evidence(&self) {
        let (Ok(views), keys) = (self.views(), view_keys(self.db, self.file)) else {
            return;
        };
        for (view, &key) in views.iter().zip(keys) {
            view.set_evidence(view_evidence(self.db, key));
        }
    }
}

/// A view as the rules see it ([`View::rebased`]): equal views of any file, at any place
/// in it, are one key, so a view an edit left alone keeps its evidence and its hits.
#[salsa::interned(debug)]
pub struct ViewKey<'db> {
    #[returns(ref)]
    pub view: View,
}

/// The languages whose rules run on a file ([`languages`]), as one key.
#[salsa::interned(debug)]
pub struct LanguageSet<'db> {
    #[returns(ref)]
    pub languages: BTreeSet<String>,
}

/// The keys of the file's views, in order (none for a file that cannot be read).
#[salsa::tracked(returns(ref))]
pub fn view_keys<'db>(db: &'db dyn salsa::Database, file: SourceFile) -> Vec<ViewKey<'db>> {
    match views(db, file) {
        Ok(views) => views
            .iter()
            .map(|v| ViewKey::new(db, v.rebased()))
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// The language evidence of a view's text, counted once per distinct view.
#[salsa::tracked(returns(copy))]
pub fn view_evidence<'db>(db: &'db dyn salsa::Database, key: ViewKey<'db>) -> Evidence {
    key.view(db).evidence()
}

/// Every hit of the rules of `languages` on one view, as view 0: computed once per
/// distinct view and language set.
#[salsa::tracked(returns(ref))]
pub fn view_hits<'db>(
    db: &'db dyn salsa::Database,
    key: ViewKey<'db>,
    languages: LanguageSet<'db>,
) -> Vec<RawHit> {
    let view = key.view(db);
    view.set_evidence(view_evidence(db, key));
    let active = active_rules(Settings::get(db).setup(db), languages.languages(db));
    let mut out = Vec::new();
    view_hits_of(0, view, &active, &mut Interner::default(), &mut |hit| {
        out.push(hit)
    });
    out
}

/// The file's SHA-256, which its [`Source`] carries: the bytes are hashed once, when the
/// shell reads them for the lockfile and the caches. A query still, so that equal bytes
/// set again stop here and `entry_state` is reused.
#[salsa::tracked(returns(copy))]
pub fn content_hash(db: &dyn salsa::Database, file: SourceFile) -> ContentHash {
    file.source(db).hash()
}

#[salsa::tracked(returns(copy))]
pub fn entry_state(db: &dyn salsa::Database, file: SourceFile) -> EntryState {
    state_of(
        file.entry(db).as_ref(),
        content_hash(db, file),
        Settings::get(db).setup(db).prompt_outdated,
    )
}

#[salsa::tracked(returns(ref))]
pub fn line_index(db: &dyn salsa::Database, file: SourceFile) -> LineIndex {
    LineIndex::of_bytes(file.source(db).bytes())
}

#[salsa::tracked(returns(ref))]
pub fn views(db: &dyn salsa::Database, file: SourceFile) -> Result<Vec<View>, FileError> {
    views_of(&Tracked { db, file })
}

/// The languages some prose of the file is in: those of the prose and quote spans its
/// views overlap, and the default language wherever a view reaches into a gap (or when no
/// spans apply). A language-scoped rule of any other language cannot survive the span
/// filter, so it is not run at all — on a Czech-only tree the English rules cost nothing.
/// The set rarely changes when the lockfile does, and an equal set stops the change here.
#[salsa::tracked(returns(ref))]
pub fn languages(db: &dyn salsa::Database, file: SourceFile) -> BTreeSet<String> {
    languages_of(&Tracked { db, file })
}

/// Every rule that can fire in one of the file's [`languages`] on every view, before span
/// filtering: each view's from [`view_hits`], so an edit re-runs the rules on the views it
/// changed and no other.
#[salsa::tracked(returns(ref))]
pub fn hits(db: &dyn salsa::Database, file: SourceFile) -> Vec<RawHit> {
    let languages = LanguageSet::new(db, languages(db, file).clone());
    let mut all = Vec::new();
    for (vi, &key) in view_keys(db, file).iter().enumerate() {
        all.extend(view_hits(db, key, languages).iter().map(|h| RawHit {
            view: vi,
            ..h.clone()
        }));
    }
    all
}

#[salsa::tracked(returns(ref))]
pub fn span_index(
    db: &dyn salsa::Database,
    file: SourceFile,
) -> Result<Option<SpanIndex>, FileError> {
    span_index_of(&Tracked { db, file })
}

#[salsa::tracked(returns(ref))]
pub fn placed(db: &dyn salsa::Database, file: SourceFile) -> Vec<Placed> {
    let hits = hits(db, file);
    // Most files have no hits: their lines need not be counted nor searched for the
    // ignore marker.
    if hits.is_empty() {
        return Vec::new();
    }
    let inputs = Tracked { db, file };
    let Some(mut placer) = Placer::new(&inputs) else {
        return Vec::new();
    };
    hits.iter().filter_map(|h| placer.place(h)).collect()
}

#[salsa::tracked(returns(ref))]
pub fn report(db: &dyn salsa::Database, file: SourceFile) -> FileReport {
    assemble(&Tracked { db, file }, |admits| {
        placed(db, file)
            .iter()
            .filter(|p| admits(p))
            .map(|p| &p.finding)
            .collect()
    })
}
