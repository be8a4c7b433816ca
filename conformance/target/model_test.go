package target

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/agentbash/agentbash/conformance/model"
	"github.com/agentbash/agentbash/internal/jsonenc"
)

// The view compares what a model sees: a raised error is its message, flagged only where the API has a
// flag; a JSON result stays JSON.
func TestModelView(t *testing.T) {
	raised := Answer{Error: toolError("ValueError", "bad")}
	text := Answer{Result: json.RawMessage(`"hi"`)}
	obj := Answer{Result: json.RawMessage(`{"a":1}`)}
	objText := Answer{Result: jsonenc.String(`{"a": 1}`)}
	cases := []struct {
		api    model.API
		a      Answer
		format string
		want   string
	}{
		{model.Anthropic, raised, "text", `error is_error: bad`},
		{model.Gemini, raised, "text", `error is_error: bad`},
		{model.OpenAIResponses, raised, "text", `"bad"`},
		{model.OpenAIChat, raised, "json", `"bad"`},
		{model.OpenAIChat, text, "text", `"hi"`},
		{model.OpenAIChat, obj, "json", `{"a":1}`},
		{model.Anthropic, objText, "json", `{"a": 1}`},
		{model.Anthropic, objText, "text", strconv.Quote(`{"a": 1}`)},
	}
	for i, tc := range cases {
		c := &modelConn{m: &ModelTarget{API: tc.api}}
		got := c.view(tc.a, tc.format)
		s := string(got.Result)
		if got.Error != nil {
			s = "error " + got.Error.Type + ": " + got.Error.Message
		}
		if s != tc.want {
			t.Errorf("%d (%s): got %s, want %s", i, tc.api, s, tc.want)
		}
	}
}
