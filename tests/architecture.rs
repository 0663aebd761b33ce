//! The invariants of `ARCHITECTURE.md` that a reading of the source can check: each test
//! here is one of them, so the document cannot claim what the code no longer keeps.

use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, with its non-test lines: a file's top-level `mod tests`
/// (after `#[cfg(test)]`) and files named `tests.rs` are left out.
fn sources(dir: &str) -> Vec<(PathBuf, Vec<(usize, String)>)> {
    let mut files = Vec::new();
    let mut pending = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && path.file_name().is_some_and(|n| n != "tests.rs")
            {
                files.push(path);
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = fs::read_to_string(&path).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            let mut kept = Vec::new();
            let mut i = 0;
            while i < lines.len() {
                let starts_tests = lines[i].trim() == "#[cfg(test)]"
                    && lines.get(i + 1).is_some_and(|l| l.starts_with("mod tests"));
                if starts_tests {
                    // `mod tests;` is a file of its own (named `tests.rs`); an inline
                    // top-level module ends at the first `}` in column one (rustfmt).
                    i += 1;
                    if !lines[i].ends_with(';') {
                        while i < lines.len() && lines[i] != "}" {
                            i += 1;
                        }
                    }
                } else {
                    kept.push((i + 1, lines[i].to_owned()));
                }
                i += 1;
            }
            (path, kept)
        })
        .collect()
}

fn shown(path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The network stays in one module: only `src/remote.rs` names gRPC (tonic), the async
/// runtime (tokio), the Remote Execution API's bindings or the packing of what it sends
/// (zstd); the engine names none of them.
#[test]
fn grpc_and_the_async_runtime_live_in_one_module() {
    let mut found = Vec::new();
    for dir in ["src", "queries/src"] {
        for (path, lines) in sources(dir) {
            if path.ends_with("src/remote.rs") {
                continue;
            }
            for (n, line) in lines {
                let code = line.split("//").next().unwrap_or("");
                if ["tonic::", "tokio::", "bazel_remote_apis", "zstd::"]
                    .iter()
                    .any(|c| code.contains(c))
                {
                    found.push(format!("{}:{n}: {}", shown(&path), line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "gRPC outside src/remote.rs:\n{}",
        found.join("\n")
    );
}

/// The engine never does I/O: no file system, environment, clock, process or network in
/// `queries/` outside its tests. The shell reads, the engine computes, the shell writes.
#[test]
fn the_engine_does_no_io() {
    let banned = [
        "std::fs",
        "std::env",
        "std::time",
        "std::process",
        "std::net",
        "stdin()",
    ];
    let mut found = Vec::new();
    for (path, lines) in sources("queries/src") {
        for (n, line) in lines {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for word in banned {
                if line.contains(word) {
                    found.push(format!("{}:{n}: {word}", shown(&path)));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The two wings of the engine stand apart: `copy/` never names `soil/`, nor the reverse.
/// What both need lives below them (`db`, `hash`, `text`).
#[test]
fn the_wings_never_import_each_other() {
    let mut found = Vec::new();
    for (wing, other) in [("copy", "crate::soil"), ("soil", "crate::copy")] {
        for (path, lines) in sources(&format!("queries/src/{wing}")) {
            for (n, line) in lines {
                if line.contains(other) {
                    found.push(format!("{}:{n}", shown(&path)));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// `unsafe` lives in a few files, each for a reason `ARCHITECTURE.md` names, and every
/// `unsafe` block states why it is sound in a `SAFETY` comment just above it (or on it).
#[test]
fn unsafe_is_rare_and_every_block_says_why() {
    let allowed = [
        "queries/src/copy/bytescan/x86.rs",
        "queries/src/copy/rules/triggers.rs",
        "queries/src/copy/rules/repeat/masks.rs",
        "queries/src/copy/source.rs",
        "src/fsutil.rs",
        "src/memory.rs",
        "src/output.rs",
    ];
    let mut found = Vec::new();
    for dir in ["queries/src", "src"] {
        for (path, lines) in sources(dir) {
            let name = shown(&path);
            for (i, (n, line)) in lines.iter().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if !code.contains("unsafe {") && !code.contains("unsafe{") {
                    continue;
                }
                if !allowed.contains(&name.as_str()) {
                    found.push(format!("{name}:{n}: unsafe outside the files allowed it"));
                }
                let said = lines[i.saturating_sub(4)..=i]
                    .iter()
                    .any(|(_, l)| l.contains("SAFETY"));
                if !said {
                    found.push(format!("{name}:{n}: unsafe block without a SAFETY comment"));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// A module of `src/`, named by its path (`["copy_audit", "fix"]`; `mod.rs` and `lib.rs`
/// name their directory).
type Module = Vec<String>;

fn module_of(path: &Path) -> Module {
    let rel = path
        .strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
        .unwrap();
    let mut parts: Module = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// Every path a line of code names from `crate::`, `super::` or `self::`, with `use`
/// groups (`use super::{a, b::{c, d}}`) spelled out, as segment lists.
fn named_paths(code: &str) -> Vec<Vec<String>> {
    fn expand(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
        let tree = tree.trim();
        if let Some(open) = tree.find('{') {
            let mut base = prefix.to_vec();
            base.extend(
                tree[..open]
                    .split("::")
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned),
            );
            let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            let (mut depth, mut start) = (0, 0);
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand(&base, &inner[start..i], out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            expand(&base, &inner[start..], out);
        } else if !tree.is_empty() {
            let mut path = prefix.to_vec();
            let tree = tree.split(" as ").next().unwrap_or(tree);
            path.extend(tree.split("::").map(|s| s.trim().to_owned()));
            out.push(path);
        }
    }
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = ["crate::", "super::", "self::"]
        .iter()
        .filter_map(|p| rest.find(p))
        .min()
    {
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        if rest[..at].ends_with(ident) {
            rest = &rest[at + 1..];
            continue;
        }
        let tail = &rest[at..];
        let mut end = tail
            .find(|c: char| !(ident(c) || c == ':'))
            .unwrap_or(tail.len());
        if tail[end..].starts_with('{') {
            // A group: up to its matching brace.
            let mut depth = 0;
            for (i, c) in tail.char_indices().skip(end) {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                if depth == 0 {
                    end = i + 1;
                    break;
                }
            }
        }
        expand(&[], &tail[..end], &mut out);
        rest = &tail[end..];
    }
    out
}

/// The modules each module of `src/` imports: a named path resolved to the longest
/// module it starts with, leaving out the module's own ancestors (a module may use what
/// its parent holds) and itself. An import of a module stands for one of its whole
/// subtree, since a parent re-exports its children: the graph can only be wider than the
/// code's, never miss a circle.
fn src_imports() -> Vec<(Module, Vec<Module>, PathBuf)> {
    let files = sources("src");
    let modules: Vec<Module> = files.iter().map(|(p, _)| module_of(p)).collect();
    let mut out = Vec::new();
    for ((path, lines), me) in files.iter().zip(&modules) {
        let code: String = lines
            .iter()
            .filter(|(_, l)| !l.trim_start().starts_with("//"))
            .map(|(_, l)| l.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let mut targets: Vec<Module> = Vec::new();
        for named in named_paths(&code) {
            let mut base: Module = match named[0].as_str() {
                "crate" => Vec::new(),
                _ => me.clone(),
            };
            let mut segments = &named[..];
            if segments[0] == "crate" || segments[0] == "self" {
                segments = &segments[1..];
            }
            while segments.first().map(String::as_str) == Some("super") {
                base.pop();
                segments = &segments[1..];
            }
            let target = (0..=segments.len())
                .rev()
                .map(|n| [&base[..], &segments[..n]].concat())
                .find(|m| modules.contains(m));
            // What an ancestor holds (`Failure`, `Outcome`) is the module's own context.
            let Some(target) = target.filter(|t| !me.starts_with(t)) else {
                continue;
            };
            for m in modules.iter().filter(|m| m.starts_with(&target)) {
                if !me.starts_with(m) && !targets.contains(m) {
                    targets.push(m.clone());
                }
            }
        }
        out.push((me.clone(), targets, path.clone()));
    }
    out
}

/// The shell's modules import in one direction: no circle of imports anywhere in `src/`
/// (a command calls the services below it; a service never calls back up).
#[test]
fn the_shell_has_no_import_circles() {
    let graph = src_imports();
    let index = |m: &Module| graph.iter().position(|(n, _, _)| n == m).unwrap();
    // Depth-first, colouring each module; a grey module met again closes a circle.
    fn visit(
        i: usize,
        graph: &[(Module, Vec<Module>, PathBuf)],
        index: &dyn Fn(&Module) -> usize,
        colour: &mut [u8],
        stack: &mut Vec<usize>,
        circles: &mut Vec<String>,
    ) {
        colour[i] = 1;
        stack.push(i);
        for target in &graph[i].1 {
            let j = index(target);
            if colour[j] == 1 {
                let from = stack.iter().position(|&k| k == j).unwrap();
                let names: Vec<String> = stack[from..]
                    .iter()
                    .chain([&j])
                    .map(|&k| graph[k].0.join("::"))
                    .collect();
                circles.push(names.join(" → "));
            } else if colour[j] == 0 {
                visit(j, graph, index, colour, stack, circles);
            }
        }
        stack.pop();
        colour[i] = 2;
    }
    let mut colour = vec![0; graph.len()];
    let mut circles = Vec::new();
    for i in 0..graph.len() {
        if colour[i] == 0 {
            visit(
                i,
                &graph,
                &index,
                &mut colour,
                &mut Vec::new(),
                &mut circles,
            );
        }
    }
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
    // The reader sees what it should: the commands import the services.
    let fix = &graph[index(&vec!["copy_audit".to_owned(), "fix".to_owned()])];
    assert!(fix.1.iter().any(|m| m.join("::") == "copy_audit::session"));
}

/// copy-audit's commands are siblings: each is called from `copy_audit::run` and uses the
/// services below it (workspace, session, caches, report, lockfile edits), never another
/// command.
#[test]
fn no_command_imports_another() {
    let commands = [
        "audit",
        "fix",
        "lockfile_cmd",
        "offline",
        "report_merge",
        "review",
        "segment",
        "server",
        "watch",
    ];
    let command = |m: &Module| {
        (m.len() >= 2 && m[0] == "copy_audit" && commands.contains(&m[1].as_str()))
            .then(|| m[1].clone())
    };
    let mut found = Vec::new();
    for (me, targets, path) in src_imports() {
        let Some(mine) = command(&me) else { continue };
        for target in &targets {
            if command(target).is_some_and(|other| other != mine) {
                found.push(format!("{}: imports {}", shown(&path), target.join("::")));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
