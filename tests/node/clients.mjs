// openai-node and the Vercel AI SDK against a running proxy, as an app would use them: each
// operation reports what the app got (its text, whether the call threw), the report it reached
// and the citation URLs it reached (the url_citation annotations; null: not exposed), through
// what the client really exposes. Driven by tests/proxy/test_client_matrix_e2e.py:
//   node clients.mjs '{"baseURL": ..., "headers": {...}}'
// prints one JSON line: a list of
// {client, operation, ok, error, text, report, reportVia, citations, citationsVia}, and for a
// stream that asked for it the usage the app reached ({prompt, completion, total}; null: none),
// for a structured answer (Output.object) the refusal the app was handed (null: none).
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, NoObjectGeneratedError, Output, streamText } from "ai";
import OpenAI from "openai";

const { baseURL, headers, input } = JSON.parse(process.argv[2]);
const sdk = new OpenAI({ baseURL, apiKey: "sk-node", defaultHeaders: headers, maxRetries: 0 });
const vercel = createOpenAI({ baseURL, apiKey: "sk-node", headers });
const messages = [{ role: "user", content: input }];

// GET /v1/chat/completions/{id}/verification: how an app reaches the report of an answer whose
// client keeps only its id.
async function stored(id) {
  const response = await fetch(`${baseURL}/chat/completions/${encodeURIComponent(id)}/verification`, {
    headers: { authorization: "Bearer sk-node" },
  });
  if (response.status !== 200) throw new Error(`report of ${id}: HTTP ${response.status}`);
  return (await response.json()).verification;
}

// The URLs of chat url_citation annotations, and of a Responses output's.
const chatCited = (annotations) => (annotations ?? []).filter((a) => a.type === "url_citation").map((a) => a.url_citation.url);
const outputCited = (response) =>
  response.output.filter((i) => i.type === "message").flatMap((i) => i.content)
    .filter((p) => p.type === "output_text").flatMap((p) => p.annotations)
    .filter((a) => a.type === "url_citation").map((a) => a.url);
const sourced = (sources) => sources.filter((s) => s.sourceType === "url").map((s) => s.url);

// streamText as an app reads it: the text parts of the full stream, an error part thrown.
// The AI SDK's streams ask for usage themselves (chat: stream_options.include_usage).
async function streamed(model) {
  const result = streamText({ model, prompt: input, maxRetries: 0 });
  let text = "";
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") text += part.text;
    if (part.type === "error") throw part.error;
  }
  const { id } = await result.response;
  const usage = await result.usage;
  return {
    text, report: await stored(id), reportVia: "GET …/{response.id}/verification",
    citations: sourced(await result.sources), citationsVia: "sources",
    usage: { prompt: usage.inputTokens, completion: usage.outputTokens, total: usage.totalTokens },
  };
}

const chatUsage = (usage) => usage && { prompt: usage.prompt_tokens, completion: usage.completion_tokens, total: usage.total_tokens };

// Output.object: the answer as an object of this schema. The SDK declines an object the model
// refused (OpenAI's `refusal`) with NoObjectGeneratedError, finishReason "content-filter" and
// the refusal as its text: that is what an app catches.
const finding = Output.object({
  schema: jsonSchema({
    type: "object",
    properties: { answer: { type: "string" } },
    required: ["answer"],
    additionalProperties: false,
  }),
});

// A JSON answer keeps its quoted citations in its own text (no url_citation annotations).
const inJson = "the JSON's text (quotes kept)";

async function declined(error) {
  if (!NoObjectGeneratedError.isInstance(error) || error.finishReason !== "content-filter") throw error;
  return {
    text: "", refusal: error.text,
    report: await stored(error.response.id), reportVia: "GET …/{response.id}/verification",
    citationsVia: inJson,
  };
}

async function generatedObject(model) {
  let result;
  try {
    result = await generateText({ model, prompt: input, output: finding, maxRetries: 0 });
  } catch (error) {
    return declined(error);
  }
  return {
    text: result.output.answer, refusal: null,
    report: result.response.body.verification, reportVia: "response.body.verification", citationsVia: inJson,
  };
}

async function streamedObject(model) {
  const result = streamText({ model, prompt: input, output: finding, maxRetries: 0 });
  let output;
  try {
    output = await result.output;
  } catch (error) {
    return declined(error);
  }
  const { id } = await result.response;
  return {
    text: output.answer, refusal: null,
    report: await stored(id), reportVia: "GET …/{response.id}/verification", citationsVia: inJson,
  };
}

const operations = {
  // -- openai-node ----------------------------------------------------------------------------
  "openai-node|chat.completions.create": async () => {
    const completion = await sdk.chat.completions.create({ model: "m", messages });
    const { message } = completion.choices[0];
    return {
      text: message.content, report: completion.verification, reportVia: "completion.verification",
      citations: chatCited(message.annotations), citationsVia: "message.annotations",
    };
  },
  "openai-node|chat.completions.create stream": async () => {
    let text = "";
    let report;
    let usage = null;
    const citations = [];
    const stream_options = { include_usage: true };
    for await (const chunk of await sdk.chat.completions.create({ model: "m", messages, stream: true, stream_options })) {
      text += chunk.choices[0]?.delta?.content ?? "";
      citations.push(...chatCited(chunk.choices[0]?.delta?.annotations));
      if (chunk.verification?.sentences) report = chunk.verification;
      if (chunk.usage) usage = chatUsage(chunk.usage);
    }
    return {
      text, report, reportVia: "the report chunk's verification", citations, citationsVia: "delta.annotations", usage,
    };
  },
  "openai-node|chat.completions.stream()": async () => {
    const stream = sdk.chat.completions.stream({ model: "m", messages, stream_options: { include_usage: true } });
    const final = await stream.finalChatCompletion();
    const { message } = final.choices[0];
    return {
      text: message.content, report: await stored(final.id), reportVia: "GET …/{completion.id}/verification",
      citations: chatCited(message.annotations), citationsVia: "message.annotations", usage: chatUsage(final.usage) ?? null,
    };
  },
  "openai-node|responses.create": async () => {
    const response = await sdk.responses.create({ model: "m", input });
    return {
      text: response.output_text, report: response.verification, reportVia: "response.verification",
      citations: outputCited(response), citationsVia: "output_text part's annotations",
    };
  },
  "openai-node|responses.create stream": async () => {
    let text = "";
    let report;
    const citations = [];
    for await (const event of await sdk.responses.create({ model: "m", input, stream: true })) {
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.output_text.annotation.added") citations.push(event.annotation.url);
      if (event.type === "response.completed" || event.type === "response.incomplete") report = event.response.verification;
    }
    return {
      text, report, reportVia: "the closing event's response.verification",
      citations, citationsVia: "response.output_text.annotation.added events",
    };
  },
  // Opted in to the proxy's own events: the raw stream passes them through (the helper below
  // would throw on them, which is why they are opt-in).
  "openai-node|responses.create stream + X-Veriproxy-Verification-Events": async () => {
    const options = { headers: { "X-Veriproxy-Verification-Events": "true" } };
    let text = "";
    let report;
    let sentences = 0;
    const citations = [];
    for await (const event of await sdk.responses.create({ model: "m", input, stream: true }, options)) {
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.output_text.annotation.added") citations.push(event.annotation.url);
      if (event.type === "response.verification.sentence") sentences += 1;
      if (event.type === "response.verification.report") report = event.report;
    }
    if (sentences !== report?.sentences?.length) throw new Error(`${sentences} sentence events`);
    return {
      text, report, reportVia: "the response.verification.report event",
      citations, citationsVia: "response.output_text.annotation.added events",
    };
  },
  "openai-node|responses.stream()": async () => {
    const stream = sdk.responses.stream({ model: "m", input });
    let text = "";
    stream.on("response.output_text.delta", (event) => { text += event.delta; });
    const final = await stream.finalResponse();
    if (final.output_text !== text) throw new Error(`final text ${JSON.stringify(final.output_text)} differs from the deltas`);
    return {
      text, report: final.verification, reportVia: "finalResponse().verification",
      citations: outputCited(final), citationsVia: "output_text part's annotations",
    };
  },
  // -- the Vercel AI SDK ----------------------------------------------------------------------
  "ai-sdk|generateText chat": async () => {
    const result = await generateText({ model: vercel.chat("m"), prompt: input, maxRetries: 0 });
    return {
      text: result.text, report: result.response.body.verification, reportVia: "response.body.verification",
      citations: sourced(result.sources), citationsVia: "sources",
    };
  },
  "ai-sdk|streamText chat": () => streamed(vercel.chat("m")),
  "ai-sdk|generateText responses": async () => {
    const result = await generateText({ model: vercel.responses("m"), prompt: input, maxRetries: 0 });
    return {
      text: result.text, report: result.response.body.verification, reportVia: "response.body.verification",
      citations: sourced(result.sources), citationsVia: "sources",
    };
  },
  "ai-sdk|streamText responses": () => streamed(vercel.responses("m")),
  "ai-sdk|generateText chat Output.object": () => generatedObject(vercel.chat("m")),
  "ai-sdk|streamText chat Output.object": () => streamedObject(vercel.chat("m")),
  "ai-sdk|generateText responses Output.object": () => generatedObject(vercel.responses("m")),
  "ai-sdk|streamText responses Output.object": () => streamedObject(vercel.responses("m")),
};

const results = [];
for (const [name, run] of Object.entries(operations)) {
  const [client, operation] = name.split("|");
  try {
    results.push({ client, operation, ok: true, ...(await run()) });
  } catch (error) {
    results.push({ client, operation, ok: false, error: String(error?.message ?? error).slice(0, 300) });
  }
}
console.log(JSON.stringify(results));
