// tokenguide web app: service worker, so a hosted copy keeps working offline after the first visit.
//
// Install (the page registers it once its start-up is over): precache the app shell, the Pyodide
// runtime, the site-packages image, the start-up snapshot, the lock file, every wheel it lists and
// the bundled GPT-2 vocabulary (the menu's other tokenizers, tens of MB, are cached when first read). Fetch (same origin, GET): network first, so a server that is up always
// serves fresh files; when the network fails, the cached copy. Every successful same-origin
// response is cached too (PyScript's files, pages opened later), unless the cache holds the same
// version already. Cached responses keep their headers, so the COOP/COEP cross-origin isolation
// of the pages survives offline.

const CACHE = 'tokenguide-v1';
const SHELL = [
  './', 'index.html', 'app.js', 'worker.js', 'style.css', 'playground.html', 'player.html',
  'js/ui.js', 'js/worker_client.js', 'js/tasks.js', 'js/vocabulary.js', 'js/builder.js', 'js/handover.js',
  'js/live_guide.js', 'js/samples.js', 'js/native_gzip.js', 'js/fast_gzip.js', 'js/range_payload.js', 'js/vendor/fflate.js', 'js/token_grid.js', 'js/playground.js', 'js/share.js', 'js/site_image.js', 'js/snapshot_file.js',
  'pyodide/pyodide.mjs', 'pyodide/pyodide.asm.mjs', 'pyodide/pyodide.asm.wasm', 'pyodide/python_stdlib.zip',
  'pyodide/pyodide-lock.json', 'pyodide/site-packages.bin', 'pyodide/startup-snapshot.json', 'pyodide/startup-snapshot.bin',
  'vocab/gpt2-vocab.json',
];

async function precache() {
  const cache = await caches.open(CACHE);
  const urls = [...SHELL];
  try {
    const lock = await (await fetch('pyodide/pyodide-lock.json', { cache: 'no-store' })).json();
    for (const pkg of Object.values(lock.packages || {})) urls.push(new URL(pkg.file_name, new URL('pyodide/', self.registration.scope)).href);
  } catch (err) {
    // without the lock the wheels are cached on first use instead
  }
  await Promise.all(urls.map(async (url) => {
    try {
      const resp = await fetch(url, { cache: 'no-store' });
      if (resp.ok) await cache.put(url, resp);
    } catch (err) {
      // a missing optional file must not stop the installation
    }
  }));
}

self.addEventListener('install', (event) => {
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) if (key !== CACHE) await caches.delete(key);
    await self.clients.claim();
  })());
});

/** Two responses for the same URL hold the same file when their validators and length agree. */
function sameVersion(a, b) {
  const keys = ['etag', 'last-modified', 'content-length'];
  const known = keys.filter((k) => b.headers.get(k) !== null);
  return known.length >= 2 && known.every((k) => a.headers.get(k) === b.headers.get(k));
}

self.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== 'GET' || url.origin !== self.location.origin) return; // never touch other origins
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const resp = await fetch(req);
      if (resp.ok && resp.status === 200) {
        // re-cache only what changed: rewriting the runtime and the snapshot (25 MB) on every visit
        // costs the start-up CPU time for nothing
        const known = await cache.match(req, { ignoreSearch: true });
        if (!known || !sameVersion(known, resp)) cache.put(req, resp.clone()).catch(() => {});
      }
      return resp;
    } catch (err) {
      const hit = (await cache.match(req, { ignoreSearch: true })) ||
        (req.mode === 'navigate' ? await cache.match('index.html') : undefined);
      if (hit) return hit;
      throw err;
    }
  })());
});
