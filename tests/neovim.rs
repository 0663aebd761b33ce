//! `copy-audit server` in a real editor: Neovim, headless, with its built-in LSP client
//! (Debian's `neovim`; `.ci/run` installs it). It opens a file of a copy of the fixture
//! tree, receives the diagnostics, applies a quick fix and "fix all", saves; the file and
//! the lockfile on disk are then byte for byte what `copy-audit --fix` writes.
//!
//! The same for `soil-lock server` on a spec of the shared trellis root: a prose edit,
//! the "refresh" quick fix, a save; the spec and sidecar on disk are what `soil-lock
//! refresh` writes.
//!
//! Without `nvim` on the PATH the tests say they were skipped, and why.

mod common;

use common::Tree;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const UVOD: &str = "content/talks/uvod.md";

/// The editor's side, in Lua: what a user does by hand, with waits instead of eyes. It
/// writes what it saw to `OUT` as JSON and exits non-zero on any failed step.
const SCRIPT: &str = r#"
local out = {}
local function finish(failed)
  local f = io.open(OUT, 'w')
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd(failed and 'cquit!' or 'qall!')
end
local ok, err = pcall(function()
  local root = vim.fn.getcwd()
  vim.cmd('edit ' .. FILE)
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({
    name = 'copy-audit',
    cmd = { BIN, 'server' },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = 'root' } },
    flags = { debounce_text_changes = 0 },
  })
  assert(id, 'the client did not start')
  vim.lsp.buf_attach_client(buf, id)
  local client = vim.lsp.get_client_by_id(id)
  assert(vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 20),
    'no diagnostics arrived')
  out.diagnostics = #vim.diagnostic.get(buf)
  local function actions(only)
    local params = {
      textDocument = vim.lsp.util.make_text_document_params(buf),
      range = { start = { line = 0, character = 0 },
                ['end'] = { line = vim.api.nvim_buf_line_count(buf), character = 0 } },
      context = { diagnostics = {}, only = only },
    }
    local r = client.request_sync('textDocument/codeAction', params, 10000, buf)
    assert(r and not r.err, 'codeAction: ' .. vim.inspect(r))
    return r.result or {}
  end
  local quick = actions({ 'quickfix' })
  out.quick = #quick
  local nbsp
  for _, a in ipairs(quick) do
    if a.title:find('^cs%-R1%-nbsp%-prep') then nbsp = a break end
  end
  assert(nbsp, 'no no-break-space quick fix among ' .. #quick)
  vim.lsp.util.apply_workspace_edit(nbsp.edit, 'utf-16')
  vim.wait(300)
  local all = actions({ 'source.fixAll.copy-audit' })
  assert(#all == 1, 'fix all offered ' .. #all .. ' times')
  vim.lsp.util.apply_workspace_edit(all[1].edit, 'utf-16')
  vim.wait(300)
  vim.cmd('write')
  vim.wait(300)
  -- A request after the save is answered after the save is taken in.
  actions(nil)
  vim.lsp.stop_client(id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(id) == nil end, 20)
end)
if not ok then out.error = tostring(err) end
finish(not ok)
"#;

/// Whether `nvim` can be run; if not, the test says it was skipped and why.
fn have_neovim() -> bool {
    let found = Command::new("nvim").arg("--version").output().is_ok();
    if !found {
        eprintln!(
            "skipped: nvim is not installed (Debian's `neovim`; .ci/run installs it), so no \
             real editor drove the server"
        );
    }
    found
}

/// Runs `script` in a headless Neovim in `dir`, with each of `globals` set as a Lua
/// string first (and `OUT`, where the script writes what it saw); that JSON.
fn drive(dir: &Path, globals: &[(&str, &str)], script: &str) -> serde_json::Value {
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out.json");
    let script_file = scratch.path().join("drive.lua");
    let mut prelude = format!("OUT = {:?}\n", out.display().to_string());
    for (name, value) in globals {
        prelude.push_str(&format!("{name} = {value:?}\n"));
    }
    std::fs::write(&script_file, prelude + script).unwrap();
    let mut child = Command::new("nvim")
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n"])
        .arg("-c")
        .arg(format!("luafile {}", script_file.display()))
        .current_dir(dir)
        .env("XDG_STATE_HOME", scratch.path())
        .env("XDG_CACHE_HOME", scratch.path())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(120) {
            child.kill().unwrap();
            panic!("Neovim did not finish in 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let seen: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap_or_default())
            .unwrap_or_else(|e| panic!("Neovim wrote no result ({status}): {e}"));
    assert!(
        status.success() && seen["error"].is_null(),
        "{status}: {seen}"
    );
    seen
}

/// The same for a spec, with `soil-lock server`: a prose edit in the buffer shows
/// `prose-stale` before any save, the "refresh" quick fix runs, the flag becomes
/// `review-suggested`, the buffer is saved.
const SOIL_SCRIPT: &str = r#"
local out = {}
local function finish(failed)
  local f = io.open(OUT, 'w')
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd(failed and 'cquit!' or 'qall!')
end
local function codes(buf)
  local seen = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    table.insert(seen, code)
  end
  table.sort(seen)
  return table.concat(seen, ',')
end
local ok, err = pcall(function()
  local root = vim.fn.getcwd()
  vim.cmd('edit ' .. FILE)
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({
    name = 'soil-lock',
    cmd = { BIN, 'server' },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = 'root' } },
    flags = { debounce_text_changes = 0 },
  })
  assert(id, 'the client did not start')
  vim.lsp.buf_attach_client(buf, id)
  local client = vim.lsp.get_client_by_id(id)
  assert(vim.wait(30000, function() return codes(buf) ~= '' end, 20), 'no diagnostics arrived')
  out.before = codes(buf)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  for i, line in ipairs(lines) do
    if line:find(OLD, 1, true) then
      local edited = line:gsub(OLD:gsub('%p', '%%%0'), NEW)
      vim.api.nvim_buf_set_lines(buf, i - 1, i, false, { edited })
      break
    end
  end
  assert(vim.wait(10000, function() return codes(buf):find('prose%-stale') end, 20),
    'no prose-stale after the edit: ' .. codes(buf))
  out.edited = codes(buf)
  local params = {
    textDocument = vim.lsp.util.make_text_document_params(buf),
    range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } },
    context = { diagnostics = {}, only = { 'quickfix' } },
  }
  local r = client.request_sync('textDocument/codeAction', params, 10000, buf)
  assert(r and not r.err, 'codeAction: ' .. vim.inspect(r))
  local refresh
  for _, a in ipairs(r.result or {}) do
    if a.title:find('^Refresh') then refresh = a end
  end
  assert(refresh, 'no refresh among ' .. vim.inspect(r.result))
  local done = client.request_sync('workspace/executeCommand', refresh.command, 10000, buf)
  assert(done and not done.err, 'executeCommand: ' .. vim.inspect(done))
  assert(vim.wait(10000, function() return codes(buf):find('review%-suggested') end, 20),
    'no review-suggested after the refresh: ' .. codes(buf))
  out.refreshed = codes(buf)
  vim.cmd('write')
  vim.lsp.stop_client(id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(id) == nil end, 20)
end)
if not ok then out.error = tostring(err) end
finish(not ok)
"#;

#[test]
fn neovim_refreshes_an_edited_spec_as_refresh_writes_it() {
    if !have_neovim() {
        return;
    }
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/trellis");
    if !shared.exists() {
        eprintln!("skipped: {} is missing", shared.display());
        return;
    }
    const SPEC: &str = "examples/csvstats/len.tr";
    const LOCK: &str = "examples/csvstats/len.lock";
    let (old, new) = ("a thin wrapper over the", "a thin layer over the");
    let tree = Tree::copy_of_dir(&shared);
    let expected = Tree::copy_of_dir(&shared);
    expected.write(SPEC, &expected.read(SPEC).replacen(old, new, 1));
    let cli = expected
        .soil_lock()
        .args([
            "--root",
            expected.path("examples").to_str().unwrap(),
            "refresh",
        ])
        .output()
        .unwrap();
    assert!(cli.status.success(), "{cli:?}");
    assert_ne!(
        expected.read(LOCK),
        tree.read(LOCK),
        "refresh changes the sidecar"
    );
    let seen = drive(
        &tree.path("examples"),
        &[
            ("FILE", SPEC.strip_prefix("examples/").unwrap()),
            ("BIN", env!("CARGO_BIN_EXE_soil-lock")),
            ("OLD", old),
            ("NEW", new),
        ],
        SOIL_SCRIPT,
    );
    eprintln!("Neovim saw {seen}");
    assert_eq!(seen["before"], "soil-missing", "{seen}");
    assert_eq!(seen["edited"], "prose-stale,soil-missing", "{seen}");
    assert_eq!(seen["refreshed"], "review-suggested,soil-missing", "{seen}");
    assert_eq!(tree.read(SPEC), expected.read(SPEC));
    assert_eq!(tree.read(LOCK), expected.read(LOCK));
}

#[test]
fn neovim_gets_diagnostics_applies_fixes_and_saves_what_fix_writes() {
    if !have_neovim() {
        return;
    }
    let tree = Tree::copy_of("copy");
    let expected = tree.fixed_copy();
    let cli = tree
        .copy_audit()
        .args(["--json", "--no-cache", "--paths", UVOD])
        .output()
        .unwrap();
    let findings = common::json(&cli.stdout)["totalFindings"].as_u64().unwrap();

    let seen = drive(
        tree.dir.path(),
        &[("FILE", UVOD), ("BIN", env!("CARGO_BIN_EXE_copy-audit"))],
        SCRIPT,
    );
    eprintln!("Neovim saw {seen}");
    assert_eq!(seen["diagnostics"].as_u64(), Some(findings), "{seen}");
    assert!(seen["quick"].as_u64().unwrap() > 0, "{seen}");
    assert_eq!(tree.read(UVOD), expected.read(UVOD));
    assert_eq!(
        tree.read(".copy-editor.lock.json"),
        expected.read(".copy-editor.lock.json")
    );
}
