// A virtualized grid of token cards: only the cards in view exist in the page, so a state with
// 50,000 allowed tokens stays smooth. Filtering happens here, without asking the worker.

import { fmt } from './ui.js';

export class TokenGrid {
  /** box: the scrolling element; count: the element showing how many tokens match. */
  constructor(box, count) {
    this.box = box;
    this.count = count;
    this.ids = new Uint32Array(0);
    this.texts = [];
    this.eos = -1;
    this.done = false;
    this.matched = [];          // indexes into ids/texts of the tokens that pass the filter
    this.needle = '';
    this.cardW = 150;
    this.rowH = 46;
    this.cols = 1;
    this.spacer = document.createElement('div');
    this.layer = document.createElement('div');
    this.spacer.className = 'vspacer';
    this.layer.className = 'vlayer';
    box.append(this.spacer, this.layer);
    let drawPending = false;
    box.addEventListener('scroll', () => {
      if (drawPending) return;
      drawPending = true;
      requestAnimationFrame(() => { drawPending = false; this.draw(); });
    });
    new ResizeObserver(() => this.layout()).observe(box);
  }

  /** Show these tokens: ids as little-endian u32 bytes, texts joined by NUL. */
  setTokens(idBytes, texts, eos, done) {
    const bytes = idBytes instanceof Uint8Array ? idBytes : new Uint8Array(0);
    this.ids = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    this.texts = this.ids.length ? texts.split('\u0000') : [];
    this.eos = eos;
    this.done = done;
    this.filter(this.needle);
    this.box.scrollTop = 0;
  }

  /** Keep the tokens whose text contains `needle` or whose id is `needle`. */
  filter(needle) {
    this.needle = needle;
    const matched = [];
    for (let i = 0; i < this.ids.length; i++) {
      if (!needle || this.texts[i].includes(needle) || String(this.ids[i]) === needle) matched.push(i);
    }
    this.matched = matched;
    this.box.matchedIds = matched.map((i) => this.ids[i]); // for tests and the console
    const total = this.ids.length;
    this.count.dataset.allowed = String(total);
    this.count.dataset.matched = String(matched.length);
    this.count.textContent = this.done ? 'generation ended (EOS)' :
      `${fmt(total)} allowed` + (needle ? `, ${fmt(matched.length)} match the filter` : '');
    this.layout();
  }

  /** Ids of the tokens left by the filter. */
  matchedIds() { return this.box.matchedIds || []; }

  layout() {
    const width = this.box.clientWidth || 600;
    this.cols = Math.max(1, Math.floor(width / this.cardW));
    const rows = Math.ceil(this.matched.length / this.cols);
    this.spacer.style.height = `${rows * this.rowH}px`;
    this.draw();
  }

  draw() {
    const box = this.box;
    const first = Math.max(0, Math.floor(box.scrollTop / this.rowH) - 2);
    const last = Math.ceil((box.scrollTop + (box.clientHeight || 420)) / this.rowH) + 2;
    const colW = (box.clientWidth || 600) / this.cols;
    const cards = [];
    for (let row = first; row <= last; row++) {
      for (let col = 0; col < this.cols; col++) {
        const k = row * this.cols + col;
        if (k >= this.matched.length) break;
        const i = this.matched[k];
        cards.push(this.card(this.ids[i], this.texts[i], row, col, colW));
      }
    }
    this.layer.replaceChildren(...cards);
  }

  card(id, text, row, col, colW) {
    const isEos = id === this.eos;
    const b = document.createElement('button');
    b.type = 'button';
    b.className = isEos ? 'token eos' : 'token';
    b.setAttribute('data-testid', 'guide-token');
    b.dataset.tokenId = String(id);
    b.style.top = `${row * this.rowH}px`;
    b.style.left = `${col * colW}px`;
    b.style.width = `${colW - 6}px`;
    const idSpan = document.createElement('span');
    idSpan.className = 'id';
    idSpan.textContent = isEos ? `${id} · EOS` : String(id);
    const txt = document.createElement('span');
    txt.className = 'txt';
    txt.textContent = text;
    b.title = `token ${id}: ${text}`;
    b.append(idSpan, txt);
    return b;
  }
}
