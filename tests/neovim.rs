//! `copy-audit server` in a real editor: Neovim, headless, with its built-in LSP client
//! (Debian's `neovim`; `.ci/run` installs it). It opens a file of a copy of the fixture
//! tree, receives the diagnostics, applies a quick fix and "fix all", saves; the file and
//! the lockfile on disk are then byte for byte what `copy-audit --fix` writes.
//!
//! Without `nvim` on the PATH the test says it was skipped, and why.

mod common;

use common::Tree;
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

#[test]
fn neovim_gets_diagnostics_applies_fixes_and_saves_what_fix_writes() {
    if Command::new("nvim").arg("--version").output().is_err() {
        eprintln!(
            "skipped: nvim is not installed (Debian's `neovim`; .ci/run installs it), so no \
             real editor drove the server"
        );
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

    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("out.json");
    let script = scratch.path().join("drive.lua");
    let lua_string = |s: &str| format!("{s:?}");
    let prelude = format!(
        "OUT = {}\nFILE = {}\nBIN = {}\n",
        lua_string(&out.display().to_string()),
        lua_string(UVOD),
        lua_string(env!("CARGO_BIN_EXE_copy-audit")),
    );
    std::fs::write(&script, prelude + SCRIPT).unwrap();
    let mut child = Command::new("nvim")
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n"])
        .arg("-c")
        .arg(format!("luafile {}", script.display()))
        .current_dir(tree.dir.path())
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
    eprintln!("Neovim saw {seen}");
    assert_eq!(seen["diagnostics"].as_u64(), Some(findings), "{seen}");
    assert!(seen["quick"].as_u64().unwrap() > 0, "{seen}");
    assert_eq!(tree.read(UVOD), expected.read(UVOD));
    assert_eq!(
        tree.read(".copy-editor.lock.json"),
        expected.read(".copy-editor.lock.json")
    );
}
