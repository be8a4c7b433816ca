// Package model is a fake model API server for checking the shell tool of an agent CLI (a host) the way a
// model reaches it: the host is pointed at the server's base URL, and the server plays the model.
//
// It speaks four APIs (API): Anthropic Messages (streaming SSE and plain JSON), OpenAI Responses (SSE and
// JSON), OpenAI Chat Completions (SSE and JSON) and Gemini generateContent (and streamGenerateContent,
// SSE with alt=sse, else a JSON array). A request that offers the tool under test is a turn of the
// conversation: the server answers it with the next tool calls its driver gives (Server.Do: several calls
// are parallel tool calls in one answer), reads the results from the host's next turn (Anthropic
// tool_result content and is_error, Responses function_call_output, Chat role "tool" messages, Gemini
// functionResponse), and ends the conversation with a plain text answer (Server.Finish). Every other
// request (title generation, token counting, model lists, telemetry) gets a minimal valid answer at once.
//
// Host runs a host CLI for a server: its argv, environment and configuration files with {base_url},
// {workspace} and {home} replaced, in the workspace, with stdin on /dev/null and HOME, TMPDIR and the XDG
// directories under a directory of its own, through runtime/proc (its own process group, and every
// process it started killed when it ends or is killed).
//
// Package modeltest is the other side, for tests: a small host that speaks each API as a client.
package model
