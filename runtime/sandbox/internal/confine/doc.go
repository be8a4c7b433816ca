// Package confine is the sandbox's helper: the code that runs in the helper process (this same binary,
// run again by runtime/sandbox with Env in its environment), recognised by the package's init before
// main, which confines itself and runs the command, and never returns to the host's main.
//
// It is a package of its own, importing only the few standard packages that Go initialises first
// (syscall, os, os/signal, runtime, errors, sync, unsafe), because Go initialises a package once its imports
// are, in the order of their import paths: a package that imported, say, path/filepath would wait for it,
// and for the dozens of packages a large host initialises before it (santhosh-tekuri/jsonschema's alone
// takes milliseconds). Every one of those would then be paid by every sandboxed call. Run the host with
// GODEBUG=inittrace=1 in the command's environment to see what the helper initialises before it.
package confine
