fn main() -> std::process::ExitCode {
    lockgraph::copy_audit::main()
}
