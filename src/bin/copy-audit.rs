/// Audits allocate many small, short-lived values across threads; mimalloc handles that
/// pattern markedly better than the system allocator (see docs/performance.md).
#[global_allocator]
static GLOBAL: lockgraph::memory::Allocator = lockgraph::memory::Allocator;

fn main() -> std::process::ExitCode {
    lockgraph::copy_audit::main()
}
