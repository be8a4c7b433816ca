// Command dockeronly links the Docker executor (runtime/proc/docker and the Engine API's Go client,
// github.com/moby/moby/client, with what it imports) and does nothing else: `make bench` shows what
// linking it costs every start of the agentbash binary, a local run's included.
package main

import _ "github.com/agentbash/agentbash/runtime/proc/docker"

func main() {}
