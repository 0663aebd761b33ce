//! The shell of lockgraph: command lines, files, output.
