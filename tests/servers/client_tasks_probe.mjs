// A 2025-11-25 server that asks the client to run an elicitation as a task, then uses every
// client-side task request on it: tasks/list, tasks/cancel (while the person has not answered),
// tasks/get, tasks/result (an error: a cancelled task has no result), tasks/cancel again (an error)
// and tasks/get of an unknown id (an error). Its one tool, "probe", reports every answer as JSON.
// Run: node tests/servers/client_tasks_probe.mjs (stdio). Uses the TypeScript SDK that the pinned
// everything server installs (node_modules/@modelcontextprotocol/sdk).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "client-tasks-probe", version: "1.0.0" });
const any = z.any();

async function attempt(send) {
  try {
    return await send();
  } catch (error) {
    return { error: { code: error.code, message: error.message } };
  }
}

server.registerTool(
  "probe",
  { description: "Exercise the client's task endpoints on one task-augmented elicitation", inputSchema: {} },
  async (_args, extra) => {
    const ask = (method, params) => attempt(() => extra.sendRequest({ method, params }, any));
    const created = await ask("elicitation/create", {
      task: { ttl: 60000 },
      message: "Take your time",
      requestedSchema: { type: "object", properties: { value: { type: "string" } } },
    });
    const taskId = created?.task?.taskId;
    const report = { created };
    report.listed = await ask("tasks/list", {});
    report.cancelled = await ask("tasks/cancel", { taskId });
    report.after = await ask("tasks/get", { taskId });
    report.result = await ask("tasks/result", { taskId });
    report.cancelledAgain = await ask("tasks/cancel", { taskId });
    report.unknown = await ask("tasks/get", { taskId: "no-such-task" });
    return { content: [{ type: "text", text: JSON.stringify(report) }] };
  },
);

await server.connect(new StdioServerTransport());
