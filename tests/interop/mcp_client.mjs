// One session of the TypeScript SDK's MCP client against a shopagent MCP server, as a shop's
// other MCP clients would open it; prints what it got as JSON for tests/test_mcp_interop.py.
// Usage: node mcp_client.mjs URL KEY MODE   (MODE: "legacy", the client's default handshake, or
// "auto", which negotiates the 2026-07-28 protocol when the server offers it)
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, key, mode] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${key}` } },
});
const options = mode === 'auto' ? { versionNegotiation: { mode: 'auto' } } : undefined;
const client = new Client({ name: 'shopagent-interop', version: '1.0.0' }, options);
await client.connect(transport);

const out = { protocol: client.getNegotiatedProtocolVersion?.() ?? null };
out.tools = (await client.listTools()).tools.map((t) => t.name);
const details = await client.callTool({ name: 'get-product-full-details', arguments: { productId: Number(process.env.PRODUCT_ID) } });
out.details = { isError: details.isError ?? false, structured: details.structuredContent, text: details.content?.[0]?.text };
const search = await client.callTool({
  name: 'product-semantic-search',
  arguments: { query: 'warm winter boots', limit: 3, filters: { colors: ['black'], inStock: true } },
});
out.search = { isError: search.isError ?? false, structured: search.structuredContent };
const bad = await client.callTool({ name: 'get-product-full-details', arguments: { productId: 0 } });
out.bad = { isError: bad.isError ?? false, text: bad.content?.[0]?.text };
try {
  await client.callTool({ name: 'no-such-tool', arguments: {} });
  out.unknown = null;
} catch (error) {
  out.unknown = String(error?.message ?? error);
}
console.log(JSON.stringify(out));
await client.close();
