import OpenAI from "openai";
const client = new OpenAI({ baseURL: "http://127.0.0.1:8080/v1", apiKey: "unused" });
const answer = await client.chat.completions.create({ model: "sql-lora", max_tokens: 20,
  messages: [{ role: "user", content: "Which tables hold orders?" }] });
console.log(answer.choices[0].message.content);
for await (const chunk of await client.chat.completions.create({ model: "chat-lora", stream: true, max_tokens: 8,
  messages: [{ role: "user", content: "Hello" }] })) process.stdout.write(chunk.choices[0]?.delta?.content ?? "");
const vectors = await client.embeddings.create({ model: "meta-llama/Llama-3.1-8B-Instruct", input: "hello" });
console.log("\n" + vectors.data[0].embedding.length + " floats (sent as base64, the SDK's default)");
const file = await client.files.create({ file: await OpenAI.toFile(Buffer.from(JSON.stringify({ custom_id: "a",
  method: "POST", url: "/v1/chat/completions", body: { model: "meta-llama/Llama-3.1-8B-Instruct", max_tokens: 4,
  messages: [{ role: "user", content: "hi" }] } }) + "\n"), "lines.jsonl"), purpose: "batch" });
const batch = await client.batches.create({ input_file_id: file.id, endpoint: "/v1/chat/completions",
  completion_window: "24h" });
console.log(batch.id, batch.status); // later: client.batches.retrieve(batch.id), client.files.content(...)
