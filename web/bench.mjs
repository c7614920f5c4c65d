// `sowzero bench` in WebAssembly under Node:
//   node web/bench.mjs engine|search|nn [options] [--json]
// The same benchmarks, options and output as the native command (make web
// first). The figures are wall time: the module runs on one thread.
import { loadSowZero } from './js/wasm-node.mjs';

const M = await loadSowZero();
process.exitCode = M.callMain(['bench', ...process.argv.slice(2)]);
