// bench/llama_cpp_prefill.mjs — llama.cpp's prompt prefill of a GGUF file, through the prebuilt
// libraries of the npm package node-llama-cpp (bench only: `npm install node-llama-cpp` in a scratch
// folder, then NODE_PATH=that/node_modules). Prints one JSON line per thread count.
//
//   node bench/llama_cpp_prefill.mjs FILE.gguf TOKENS REPS [THREADS...]     default threads: 1 2
//
// Each rep evaluates TOKENS ids (a fixed pseudo-random sequence) on an empty sequence in one batch,
// as a prompt is prefilled, then one more id after them, as a decoding step: the median wall times
// (median_ms, step_ms) of REPS reps after one warm-up.
import { createRequire } from "node:module";
const require = createRequire(process.env.NODE_PATH ? process.env.NODE_PATH + "/" : import.meta.url);
const { getLlama, LlamaLogLevel } = await import(require.resolve("node-llama-cpp"));

const [file, tokensArg, repsArg, ...threadArgs] = process.argv.slice(2);
const t = Number(tokensArg), reps = Number(repsArg || 5);
const threadCounts = threadArgs.length ? threadArgs.map(Number) : [1, 2];
const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
let state = 12345;
const vocab = Number(process.env.VOCAB || 50257); // ids below GPT-2's vocabulary
const ids = Array.from({ length: t }, () => (state = (state * 1103515245 + 12345) % 2147483648) % vocab);
for (const threads of threadCounts) {
    const context = await model.createContext({ contextSize: Math.max(t + 1, 256), batchSize: t, threads: { ideal: threads, min: threads }, flashAttention: false });
    const sequence = context.getSequence();
    const times = [], steps = [];
    const since = (start) => Number(process.hrtime.bigint() - start) / 1e6;
    for (let r = 0; r <= reps; ++r) {
        await sequence.clearHistory();
        let start = process.hrtime.bigint();
        await sequence.evaluateWithoutGeneratingNewTokens(ids);
        const ms = since(start);
        start = process.hrtime.bigint();
        await sequence.evaluateWithoutGeneratingNewTokens([ids[0]]);
        if (r > 0) times.push(ms), steps.push(since(start)); // the first is a warm-up
    }
    const median = (v) => Math.round(v.sort((a, b) => a - b)[v.length >> 1] * 10) / 10;
    console.log(JSON.stringify({ threads, tokens: t, median_ms: median(times), step_ms: median(steps) }));
    await context.dispose();
}
await model.dispose();
