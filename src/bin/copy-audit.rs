/// Audits allocate many small, short-lived values across threads; mimalloc handles that
/// pattern markedly better than the system allocator (23% of a warm run, 7% of a cold one
/// on the realistic corpus: docs/performance.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    lockgraph::copy_audit::main()
}
