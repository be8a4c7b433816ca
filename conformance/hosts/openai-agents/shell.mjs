// A host of the Responses API's shell tool: an agent of the OpenAI Agents SDK for TypeScript (@openai/agents)
// with the SDK's shellTool, run against the model at OPENAI_BASE_URL until the model answers with text.
//
// The SDK sends the tool as {"type": "shell", "environment": {"type": "local"}}, reads the model's
// shell_call items, calls the Shell it is given with each action, and sends the result back as a
// shell_call_output item. The SDK has no executor of its own: this one does what the SDK's example
// executor (examples/tools/shell.ts) does, as its users copy it: each command in order through
// child_process.exec (/bin/sh -c) in the working directory, with the action's timeout_ms as exec's timeout
// and its max_output_length as exec's maxBuffer; an error of exec gives the command's exit code, or a
// timeout outcome when the shell was killed, and a timeout ends the list.
//
// Usage: node shell.mjs PROMPT (make hosts copies it beside the installed package, whose modules it imports).
import { exec } from 'node:child_process';
import process from 'node:process';
import { Agent, run, shellTool, setTracingDisabled } from '@openai/agents';

function execOne(command, action) {
  return new Promise((resolve) => {
    exec(command, { cwd: process.cwd(), timeout: action.timeoutMs, maxBuffer: action.maxOutputLength },
      (error, stdout, stderr) => resolve({ error, stdout, stderr }));
  });
}

const shell = {
  async run(action) {
    const output = [];
    for (const command of action.commands) {
      const { error, stdout, stderr } = await execOne(command, action);
      let outcome = { type: 'exit', exitCode: 0 };
      if (error) {
        outcome = error.killed || error.signal === 'SIGTERM'
          ? { type: 'timeout' }
          : { type: 'exit', exitCode: typeof error.code === 'number' ? error.code : null };
      }
      output.push({ command, stdout: error ? (error.stdout ?? stdout ?? '') : stdout, stderr: error ? (error.stderr ?? stderr ?? '') : stderr, outcome });
      if (outcome.type === 'timeout') break;
    }
    return { output, providerData: { working_directory: process.cwd() } };
  },
};

setTracingDisabled(true);
const agent = new Agent({
  name: 'Shell host',
  model: process.env.OPENAI_MODEL || 'gpt-5.1',
  instructions: 'Run the shell commands you are asked to run.',
  tools: [shellTool({ shell })],
});
const result = await run(agent, process.argv[2] || 'Run the tool calls you are given.', { maxTurns: 100000 });
console.log(result.finalOutput);
