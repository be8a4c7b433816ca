package schemagen_test

import (
	"bytes"
	"testing"

	"github.com/agentbash/agentbash/spec"
	"github.com/agentbash/agentbash/spec/internal/schemagen"
)

func TestSchemaIsFresh(t *testing.T) {
	t.Chdir("../..") // spec/, where go generate runs
	got, err := schemagen.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, spec.SchemaJSON()) {
		t.Fatal("spec/schema.json is stale: run go generate ./spec")
	}
}
