// Samples: random completions of the live guide's constraint from its current state, drawn in the
// worker one at a time (progress per token, Stop ends the draw, the samples so far stay), each shown
// as its tokens (as text, never HTML) with the verdict of an independent parser.

import { ui, fmt } from './ui.js';

/** Read a whole number from an <input type=number> between lo and hi (the default when empty or wrong). */
function whole(input, lo, hi, fallback) {
  const n = Number(input.value);
  return Number.isInteger(n) && n >= lo && n <= hi ? n : fallback;
}

export class Samples {
  /** guide: the LiveGuide (its task() runs one worker task with progress, Stop and errors). */
  constructor(client, guide) {
    this.client = client;
    this.guide = guide;
  }

  /** Draw the samples one request at a time, each shown as soon as it arrives. */
  draw() {
    const count = whole(ui.samplesCount, 1, 100, 5);
    const budget = whole(ui.samplesBudget, 1, 4096, 128);
    const mode = ui.samplesMode.value;
    ui.samplesList.replaceChildren();
    ui.samplesList.dataset.state = 'drawing';
    ui.samplesList.dataset.count = '0';
    return this.guide.task('drawing samples…', async () => {
      try {
        for (let i = 0; i < count; i++) {
          const [sample] = await this.client.call('guide_samples', [1, mode, budget, null, '$progress', '$cancel'],
            (stage, done, total) => this.guide.progress(`sample ${i + 1} of ${count}: token`, done, total));
          ui.samplesList.append(this.item(sample));
          ui.samplesList.dataset.count = String(i + 1);
        }
        ui.samplesList.dataset.state = 'done';
      } catch (err) {
        ui.samplesList.dataset.state = 'stopped';
        throw err;
      }
    }, { stopped: 'Stopped: the samples drawn so far are shown.' });
  }

  /** One sample: its tokens with their boundaries (the guide's prefix dimmed), then the check. */
  item(sample) {
    const li = document.createElement('li');
    li.setAttribute('data-testid', 'sample');
    li.dataset.stop = sample.stop;
    li.dataset.ok = String(sample.check.ok);
    li.dataset.ids = JSON.stringify([...sample.prefix, ...sample.tokens].map(([id]) => id));
    const row = document.createElement('div');
    row.className = 'sample-tokens';
    row.setAttribute('aria-label', 'tokens of the sample');
    const eos = Number(ui.eos.dataset.eosId);
    for (const [list, cls] of [[sample.prefix, 'prefix'], [sample.tokens, '']]) {
      for (const [id, text] of list) {
        const span = document.createElement('span');
        span.className = `tok ${cls} ${id === eos ? 'eos' : ''}`.trim();
        span.dataset.tokenId = String(id);
        span.title = `token ${id}`;
        span.textContent = text;
        row.append(span);
      }
    }
    const text = document.createElement('div');
    text.className = 'sample-text';
    text.setAttribute('data-testid', 'sample-text');
    text.textContent = sample.text;
    const check = document.createElement('div');
    const c = sample.check;
    check.className = `sample-check ${c.ok === true ? 'yes' : c.ok === false ? 'no' : 'unknown'}`;
    check.setAttribute('data-testid', 'sample-check');
    const n = sample.tokens.length;
    const end = sample.stop === 'eos' ? 'ended with EOS' : sample.stop === 'budget' ? 'stopped at the budget' : 'stopped: no token allowed';
    check.textContent = `${fmt(n)} token${n === 1 ? '' : 's'}, ${end}. ` +
      (c.parser ? `${c.parser}: ${c.ok === true ? 'valid' : c.ok === false ? 'NOT valid' : 'not run'} (${c.message})` : c.message);
    li.append(row, text, check);
    return li;
  }

  bind() {
    ui.samplesButton.addEventListener('click', () => this.draw());
  }
}
