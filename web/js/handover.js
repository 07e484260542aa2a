// What happens to a built index: Download as a file, or Open in the player (a new tab that gets
// the bytes and the vocabulary by postMessage, no second download).

import { ui, showError } from './ui.js';
import { lastBuild } from './builder.js';
import { VocabularyChoice } from './vocabulary.js';

export function download(result) {
  const url = URL.createObjectURL(new Blob([result.bytes], { type: 'application/octet-stream' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = result.name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/** Open player.html and post {type: 'tokenguide-index', bytes, vocab, ...} once it says it is ready. */
export function openInPlayer(result) {
  const win = window.open('player.html', '_blank');
  if (!win) { showError({ message: 'The browser blocked the new tab: allow pop-ups for this page, or use Download.' }); return; }
  const vocabText = VocabularyChoice.textOf(result.source).catch(() => null);
  const onMessage = async (event) => {
    if (event.source !== win || !event.data || event.data.type !== 'tokenguide-player-ready') return;
    window.removeEventListener('message', onMessage);
    const vocab = await vocabText;
    const bytes = result.bytes.slice(); // a copy: the page keeps its own for Download
    win.postMessage({ type: 'tokenguide-index', bytes: bytes.buffer, vocab, vocabName: result.vocabName, name: result.name }, location.origin, [bytes.buffer]);
  };
  window.addEventListener('message', onMessage);
}

export function bindHandover() {
  ui.download.addEventListener('click', () => { if (lastBuild.result) download(lastBuild.result); });
  ui.openPlayer.addEventListener('click', () => { if (lastBuild.result) openInPlayer(lastBuild.result); });
}
