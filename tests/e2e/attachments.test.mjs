// Attached files: an image pasted, sent as an image_url part, kept across a
// reload and an export; text files kept whole and given to the model as text (cut at a limit, and saying so);
// files that are neither refused with why; and the real local model, which
// has no vision, refusing an image with a clear message while the message
// stays.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { configure, launchBrowser, openApp, scriptedHarness, send, serveApp, startModel } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

// A real 1×1 PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** Dispatches a paste (or a drop on the composer) carrying `files`. */
async function give(page, how, files) {
  await page.evaluate(({ how, files }) => {
    const dt = new DataTransfer();
    for (const f of files) {
      const bytes = Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0));
      dt.items.add(new File([bytes], f.name, { type: f.type }));
    }
    if (how === 'paste') {
      const input = document.querySelector('[data-testid=composer-input]');
      input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    } else {
      const form = document.querySelector('form.composer');
      form.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  }, { how, files });
}

/** Whether every image in `locator` has loaded and has a width. */
async function loaded(locator) {
  await locator.first().waitFor();
  return locator.evaluateAll((imgs) => imgs.length > 0 && imgs.every((i) => i.complete && i.naturalWidth > 0));
}

describe('attachments', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);

  test('a pasted image goes as an image_url part, and its thumbnail survives a reload, an export and an import', async () => {
    const { context, page, errors } = await h.freshPage({ acceptDownloads: true });
    await give(page, 'paste', [{ name: 'dot.png', type: 'image/png', b64: PNG }]);
    const chip = page.getByTestId('file-chip');
    await chip.waitFor();
    assert.equal(await chip.getAttribute('data-kind'), 'image');
    assert.ok(await loaded(chip.locator('img')), 'the chip shows the image');
    assert.equal(await page.getByTestId('composer-input').inputValue(), '', 'a pasted file is not typed');

    h.model.enqueue(reply.text('A single red pixel.'));
    await send(page, 'What is in this picture?');
    await page.getByText('A single red pixel.').waitFor({ timeout: 20_000 });
    assert.equal(await page.getByTestId('file-chip').count(), 0, 'sent: the composer is empty again');
    assert.equal((await page.getByTestId('session-item').first().textContent()).trim().startsWith('What is in this picture?'), true);
    const body = h.model.requests.at(-1).body;
    assert.deepEqual(body.messages.at(-1), {
      role: 'user',
      content: [
        { type: 'text', text: 'What is in this picture?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      ],
    });
    const thumb = page.getByTestId('message-user').getByTestId('message-image');
    assert.ok(await loaded(thumb.locator('img')), 'the message shows its image');

    // Click to enlarge; Esc closes.
    await thumb.click();
    const box = page.locator('dialog.lightbox[open]');
    await box.waitFor();
    assert.ok(await loaded(box.locator('img')));
    await page.keyboard.press('Escape');
    await box.waitFor({ state: 'detached' });

    // The next request of the conversation sends the image again.
    h.model.enqueue(reply.text('Still one pixel.'));
    await send(page, 'And now?');
    await page.getByText('Still one pixel.').waitFor({ timeout: 20_000 });
    const again = h.model.requests.at(-1).body.messages.filter((m) => m.role === 'user');
    assert.equal(again[0].content[1].image_url.url, `data:image/png;base64,${PNG}`);
    assert.equal(again[1].content, 'And now?', 'a message without images stays plain text');

    await page.reload();
    await page.getByTestId('message-assistant').first().waitFor({ timeout: 20_000 });
    assert.ok(await loaded(page.getByTestId('message-image').locator('img')), 'after a reload the thumbnail is still there');

    // Export carries the file; an import into an empty profile brings it back.
    await page.getByTestId('open-settings').click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-all').click()]);
    const exported = JSON.parse(readFileSync(await download.path(), 'utf8'));
    assert.equal(exported.version, 2);
    const [session] = exported.sessions;
    assert.deepEqual(session.files.map((f) => [f.type, f.data]), [['image/png', PNG]]);
    const attached = session.messages.find((m) => m.attachments).attachments;
    assert.deepEqual(attached.map((a) => [a.name, a.type, a.size]), [['dot.png', 'image/png', Buffer.from(PNG, 'base64').length]]);
    assert.equal(attached[0].id, session.files[0].id);
    assert.ok(!JSON.stringify(session.messages).includes(PNG), 'no base64 inside message records');
    assert.deepEqual(errors, []);
    await context.close();

    const other = await h.importedPage(exported);
    assert.ok(await loaded(other.page.getByTestId('message-image').locator('img')), 'the imported message shows its image');
    await other.context.close();
  });

  test('a large photo is scaled down to 2048 px on its longer side before it is stored and sent; a small one and a GIF go as they are', async () => {
    const { context, page, errors } = await h.freshPage();
    // A 3000 × 2000 photo and a 3000 × 2000 screenshot, drawn in the page
    // (a gradient, so the photo is not trivially small), and a GIF.
    const made = await page.evaluate(async () => {
      const draw = async (type) => {
        const canvas = new OffscreenCanvas(3000, 2000);
        const ctx = canvas.getContext('2d');
        const g = ctx.createLinearGradient(0, 0, 3000, 2000);
        g.addColorStop(0, '#c33');
        g.addColorStop(1, '#36c');
        ctx.fillStyle = g;
        ctx.fillRect(0, 0, 3000, 2000);
        const blob = await canvas.convertToBlob({ type, quality: 0.95 });
        const bytes = new Uint8Array(await blob.arrayBuffer());
        let bin = '';
        for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
        return { b64: btoa(bin), size: bytes.length };
      };
      return { jpeg: await draw('image/jpeg'), png: await draw('image/png') };
    });
    // A real 1×1 GIF.
    const GIF = 'R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==';
    await give(page, 'paste', [
      { name: 'photo.jpg', type: 'image/jpeg', b64: made.jpeg.b64 },
      { name: 'screen.png', type: 'image/png', b64: made.png.b64 },
      { name: 'dot.gif', type: 'image/gif', b64: GIF },
    ]);
    await page.getByTestId('file-chip').nth(2).waitFor();
    assert.deepEqual(await page.getByTestId('file-scaled').allTextContents(), ['scaled from 3000×2000', 'scaled from 3000×2000']);
    h.model.enqueue(reply.text('Two gradients and a dot.'));
    await send(page, 'Describe these');
    await page.getByText('Two gradients and a dot.').waitFor({ timeout: 20_000 });
    const parts = h.model.requests.at(-1).body.messages.at(-1).content.filter((p) => p.type === 'image_url');
    assert.equal(parts.length, 3);
    const decode = (url) => {
      const [head, b64] = url.split(',');
      return { type: head.slice('data:'.length, head.indexOf(';')), bytes: Buffer.from(b64, 'base64') };
    };
    // PNG: width and height in the IHDR chunk.
    const png = decode(parts[1].image_url.url);
    assert.equal(png.type, 'image/png');
    assert.deepEqual([png.bytes.readUInt32BE(16), png.bytes.readUInt32BE(20)], [2048, 1365]);
    // JPEG: the size in its start-of-frame segment.
    const jpeg = decode(parts[0].image_url.url);
    assert.equal(jpeg.type, 'image/jpeg');
    let at = 2;
    let size = null;
    while (at < jpeg.bytes.length && !size) {
      const marker = jpeg.bytes[at + 1];
      const length = jpeg.bytes.readUInt16BE(at + 2);
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
        size = [jpeg.bytes.readUInt16BE(at + 7), jpeg.bytes.readUInt16BE(at + 5)];
      }
      at += 2 + length;
    }
    assert.deepEqual(size, [2048, 1365]);
    assert.ok(jpeg.bytes.length < made.jpeg.size, `${jpeg.bytes.length} bytes, was ${made.jpeg.size}`);
    // The GIF is sent byte for byte.
    assert.equal(parts[2].image_url.url, `data:image/gif;base64,${GIF}`);
    // What is stored is the scaled image: the thumbnail after a reload is 2048 wide.
    await page.reload();
    await page.getByTestId('message-assistant').first().waitFor({ timeout: 20_000 });
    const thumbs = page.getByTestId('message-user').last().getByTestId('message-image').locator('img');
    assert.ok(await loaded(thumbs));
    assert.deepEqual(await thumbs.evaluateAll((imgs) => imgs.map((i) => i.naturalWidth)), [2048, 2048, 1]);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('text files are kept as files, saved from their chips, and go to the model as text (a long one cut, and saying so); other files are refused with why', async () => {
    const { context, page, errors } = await h.freshPage();
    const long = 'abcdefghij'.repeat(6_000);
    await page.getByTestId('attach-input').setInputFiles([
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from(long) },
      { name: 'main.rs', mimeType: '', buffer: Buffer.from('fn main() {}\n') },
      { name: 'drop-me.md', mimeType: 'text/markdown', buffer: Buffer.from('not sent') },
    ]);
    await page.getByTestId('file-chip').nth(2).waitFor();
    assert.deepEqual(await page.getByTestId('file-chip').evaluateAll((l) => l.map((c) => c.dataset.kind)), ['text', 'text', 'text']);
    assert.equal(await page.getByTestId('file-chip').first().getByTestId('file-cut').count(), 1, 'the long file says it is cut');
    assert.equal(await page.getByTestId('file-chip').nth(1).getByTestId('file-cut').count(), 0);
    // One is taken off again.
    await page.getByTestId('file-chip').nth(2).getByTestId('file-remove').click();
    assert.equal(await page.getByTestId('file-chip').count(), 2);

    // A PDF is neither an image nor text: refused, with why.
    await give(page, 'drop', [{ name: 'paper.pdf', type: 'application/pdf', b64: Buffer.from('%PDF-1.7\n\u0000\u0001').toString('base64') }]);
    await page.getByText('paper.pdf was not attached: it is neither an image (PNG, JPEG, GIF, WebP) nor a text file.').waitFor();
    assert.equal(await page.getByTestId('file-chip').count(), 2);

    // Files alone can be sent.
    h.model.enqueue(reply.text('Read them.'));
    await page.getByTestId('send').click();
    await page.getByText('Read them.').waitFor({ timeout: 20_000 });
    const content = h.model.requests.at(-1).body.messages.at(-1).content;
    assert.equal(typeof content, 'string');
    assert.equal(
      content,
      `File \`notes.txt\` (cut: the first 50000 of 60000 characters):\n\`\`\`txt\n${long.slice(0, 50_000)}\n\`\`\`\n\nFile \`main.rs\`:\n\`\`\`rs\nfn main() {}\n\`\`\``,
    );
    assert.ok(!content.includes('not sent'));
    // The message shows its files as chips (the text is the model's only).
    const chips = page.getByTestId('message-user').getByTestId('message-file');
    assert.deepEqual(await chips.allTextContents(), ['notes.txt · 60.0 KB', 'main.rs · 13 B']);
    assert.equal((await page.getByTestId('message-user').getByTestId('message-text').allTextContents()).join('').trim(), '');
    // A chip saves its file, every byte.
    const [download] = await Promise.all([page.waitForEvent('download'), chips.first().click()]);
    assert.equal(download.suggestedFilename(), 'notes.txt');
    assert.equal(readFileSync(await download.path(), 'utf8'), long);
    // A long message is shown in part until asked.
    h.model.enqueue(reply.text('A long one.'));
    await send(page, long);
    await page.getByText('A long one.').waitFor({ timeout: 20_000 });
    const shown = page.getByTestId('message-user').last().getByTestId('message-text');
    assert.match(await shown.getAttribute('class'), /clamped/);
    await page.getByTestId('expand-message').click();
    assert.doesNotMatch(await shown.getAttribute('class'), /clamped/);
    assert.equal(await page.getByTestId('expand-message').getAttribute('aria-expanded'), 'true');
    assert.deepEqual(errors, []);
    await context.close();
  });
});

describe('attachments with the local model', () => {
  let browser, app, model;

  before(async () => {
    app = await serveApp();
    model = await startModel({ nPredict: 32 });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await model?.stop();
    app?.server.close();
  });

  test('a model without vision refuses the image once, with a clear message, and the message stays', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const streamed = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/chat/completions') && JSON.parse(r.postData() ?? '{}').stream) streamed.push(r);
    });
    const errors = await openApp(page, app.url);
    await configure(page, { baseUrl: model.baseUrl });
    await give(page, 'drop', [{ name: 'dot.png', type: 'image/png', b64: PNG }]);
    await page.getByTestId('file-chip').waitFor();
    await send(page, 'Describe this.');
    const error = page.getByTestId('message-assistant').getByTestId('message-error');
    await error.waitFor({ timeout: 30_000 });
    assert.match(await error.textContent(), /This model does not accept images\. Your message is kept/);
    assert.match(await error.textContent(), /mmproj/, "the server's own words are shown too");
    assert.equal(streamed.length, 1, 'a refusal of images is not retried');
    assert.equal(await page.getByTestId('message-user').getByTestId('message-text').textContent(), 'Describe this.');
    assert.ok(await loaded(page.getByTestId('message-user').getByTestId('message-image').locator('img')));
    // Remembered: the next image for this model is warned about before it is sent.
    assert.equal(await page.getByTestId('attach-no-vision').count(), 0);
    await give(page, 'paste', [{ name: 'dot.png', type: 'image/png', b64: PNG }]);
    await page.getByTestId('attach-no-vision').waitFor();
    // The console shows the failed request; nothing else went wrong.
    assert.deepEqual(errors.filter((e) => !/Failed to load resource/.test(e)), []);
    await context.close();
  });
});
