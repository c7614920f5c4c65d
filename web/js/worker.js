// The page's engine runs here, off the page's thread, so that a search
// never freezes the page. Messages in: {id, method, args}, where method is
// 'init' (args: [seed]; answers the rules registry), 'transcript' (the
// lines sent), 'responses' (their answers), 'moves' (the record) or a
// method of Engine (engine.js); messages out: {id, result} or {id, error}.
import createSowZero from '../wasm/sowzero.mjs';

import { Engine } from './engine.js';

let engine = null;

async function handle(method, args) {
  if (method === 'init') {
    const module = await createSowZero();
    engine = new Engine(module, args[0]);
    return { rules: engine.rules(), state: engine.position };
  }
  if (!engine) throw new Error('the engine is not started');
  if (method === 'transcript') return engine.transcript.slice();
  if (method === 'responses') return engine.responses.slice();
  if (method === 'moves') return engine.moves.slice();
  if (typeof Engine.prototype[method] !== 'function' || method === 'constructor' || method === 'send')
    throw new Error(`no engine method ${method}`);
  return engine[method](...args);
}

// One message at a time, in order: the session is a sequence of commands.
let queue = Promise.resolve();
self.onmessage = (ev) => {
  const { id, method, args = [] } = ev.data;
  queue = queue.then(async () => {
    try {
      self.postMessage({ id, result: await handle(method, args) });
    } catch (e) {
      self.postMessage({ id, error: e.message || String(e) });
    }
  });
};
