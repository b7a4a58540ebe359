// A server written with the TypeScript SDK that samples with tools, as an agent loop does: its one
// tool, "ask_with_tools", asks the client's LLM a question offering it a "lookup" tool
// (server.createMessage with tools and toolChoice, which the SDK checks against the client's
// sampling.tools capability and validates with CreateMessageResultWithToolsSchema), runs every
// tool_use the answer holds, asks again with the tool_result blocks (toolChoice "none"), and reports
// both answers as JSON. Run: node tests/servers/sampling_tools_agent.mjs (stdio). Uses the TypeScript
// SDK that the pinned everything server installs (node_modules/@modelcontextprotocol/sdk).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "sampling-tools-agent", version: "1.0.0" });
const LOOKUP = {
  name: "lookup",
  description: "Look a word up in the server's glossary",
  inputSchema: {
    type: "object",
    properties: { word: { type: "string", description: "The word" }, lang: { type: "string", enum: ["en", "fr"] } },
    required: ["word"],
  },
};
const GLOSSARY = { mcp: "Model Context Protocol", jep: "Jupyter Enhancement Proposal" };

server.registerTool(
  "ask_with_tools",
  { description: "Ask the client's LLM, offering it the lookup tool", inputSchema: { question: z.string() } },
  async ({ question }) => {
    const asked = [{ role: "user", content: { type: "text", text: question } }];
    const first = await server.server.createMessage({
      messages: asked,
      maxTokens: 100,
      tools: [LOOKUP],
      toolChoice: { mode: "auto" },
    });
    const blocks = Array.isArray(first.content) ? first.content : [first.content];
    const uses = blocks.filter((b) => b.type === "tool_use");
    let second = null;
    if (uses.length) {
      const results = uses.map((use) => ({
        type: "tool_result",
        toolUseId: use.id,
        content: [{ type: "text", text: GLOSSARY[String(use.input.word).toLowerCase()] ?? "not in the glossary" }],
      }));
      second = await server.server.createMessage({
        messages: [...asked, { role: "assistant", content: blocks }, { role: "user", content: results }],
        maxTokens: 100,
        tools: [LOOKUP],
        toolChoice: { mode: "none" },
      });
    }
    const report = { first, second };
    return { content: [{ type: "text", text: JSON.stringify(report) }] };
  },
);

await server.connect(new StdioServerTransport());
