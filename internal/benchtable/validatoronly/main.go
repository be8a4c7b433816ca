// Command validatoronly links the JSON Schema validator and does nothing else: `make bench` shows what
// that package's initialisation alone costs a program's start.
package main

import _ "github.com/santhosh-tekuri/jsonschema/v6"

func main() {}
