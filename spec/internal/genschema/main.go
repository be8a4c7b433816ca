// Command genschema writes the spec language's JSON Schema, reflected from the spec package's Go types. Run
// it in spec/ (go generate ./spec).
package main

import (
	"flag"
	"log"
	"os"

	"github.com/agentbash/agentbash/spec/internal/schemagen"
)

func main() {
	out := flag.String("o", "schema.json", "output file")
	flag.Parse()
	b, err := schemagen.Generate()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatal(err)
	}
}
