// The UI language of a first run follows the browser's (a zh-* first
// language is Chinese, anything else English) until the user picks one in
// Settings, which is kept; `<html lang>` follows it. The sidebar folded
// away leaves a rail whose three buttons (new chat, search, Settings) do
// what the sidebar's and the top bar's do. Scripted model.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { configure, openApp, scriptedHarness, send, settled } from './support.mjs';
import { reply, startScriptedModel } from '../support/scripted-model.mjs';

const ZH = { creator: '有什么可以帮你？', suggestion: '用两句话解释彩虹是怎么形成的。', newChat: '+ 新对话' };
const EN = { creator: 'What can I help with?', suggestion: 'Explain how a rainbow forms in two sentences.', newChat: '+ New chat' };

describe('language from the browser, and the sidebar rail (scripted model)', () => {
  const h = scriptedHarness({ before, after }, startScriptedModel);

  /** A fresh profile in a browser whose language is `locale`, the app open. */
  async function open(locale, contextOptions = {}) {
    const context = await h.browser.newContext({ locale, ...contextOptions });
    const page = await context.newPage();
    const errors = await openApp(page, h.app.url);
    return { context, page, errors };
  }

  /** What the empty chat shows, and the page's `lang`. */
  async function shown(page) {
    const creator = page.getByTestId('session-creator');
    await creator.waitFor();
    return {
      creator: await creator.locator('h2').textContent(),
      suggestion: await page.getByTestId('suggestion').first().textContent(),
      newChat: await page.getByTestId('new-session').textContent(),
      lang: await page.evaluate(() => document.documentElement.lang),
    };
  }

  const storedSettings = (page) => page.evaluate(() => localStorage.getItem('air-agent-settings') ?? '');
  const sidebarVisible = (page) => page.getByTestId('sidebar').evaluate((el) => el.getBoundingClientRect().right > 0);

  test('a zh-CN browser gets Chinese on first run, also after other settings are saved', async () => {
    const { context, page, errors } = await open('zh-CN');
    assert.match(await page.evaluate(() => navigator.languages[0] ?? navigator.language), /^zh/, 'the browser says Chinese');
    assert.deepEqual(await shown(page), { ...ZH, lang: 'zh-CN' });
    assert.equal(await page.getByTestId('composer-input').getAttribute('placeholder'), '输入问题…（Enter 发送，Shift+Enter 换行，Esc 停止）');

    // Saving other settings picks no language: none is written, and the
    // browser's is still followed after a reload.
    await configure(page, { baseUrl: h.model.baseUrl, model: 'scripted-model' });
    assert.doesNotMatch(await storedSettings(page), /"language"/);
    await page.reload();
    await page.getByTestId('composer-input').waitFor();
    assert.deepEqual(await shown(page), { ...ZH, lang: 'zh-CN' });

    // The rail speaks Chinese too.
    await page.getByTestId('collapse-sidebar').click();
    const rail = page.getByTestId('sidebar-rail');
    await rail.waitFor();
    assert.equal(await rail.getAttribute('aria-label'), '快捷操作');
    assert.equal(await rail.getByRole('button', { name: '新对话', exact: true }).count(), 1);
    assert.equal(await rail.getByRole('button', { name: '搜索对话', exact: true }).count(), 1);
    assert.equal(await rail.getByRole('button', { name: '设置', exact: true }).count(), 1);
    assert.equal(await page.getByTestId('rail-settings').getAttribute('title'), '设置');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('an en-US browser gets English on first run', async () => {
    const { context, page, errors } = await open('en-US');
    assert.match(await page.evaluate(() => navigator.languages[0] ?? navigator.language), /^en/, 'the browser says English');
    assert.deepEqual(await shown(page), { ...EN, lang: 'en' });
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a language picked in Settings is kept over a reload in a zh-CN browser', async () => {
    const { context, page, errors } = await open('zh-CN');
    assert.equal((await shown(page)).creator, ZH.creator);
    await page.getByTestId('open-settings').click();
    assert.equal(await page.getByTestId('settings-language').inputValue(), 'zh', 'the browser’s language is shown');
    await page.getByTestId('settings-language').selectOption('en');
    await page.getByTestId('settings-save').click();
    await page.getByTestId('settings').waitFor({ state: 'detached' });
    assert.deepEqual(await shown(page), { ...EN, lang: 'en' });
    // Written once the part that writes preferences is here.
    await page.waitForFunction(() => (localStorage.getItem('air-agent-settings') || '').includes('"language":"en"'), null, { timeout: 10_000 });

    await page.reload();
    await page.getByTestId('composer-input').waitFor();
    assert.deepEqual(await shown(page), { ...EN, lang: 'en' });
    await page.getByTestId('open-settings').click();
    assert.equal(await page.getByTestId('settings-language').inputValue(), 'en');
    assert.equal(await page.locator('[data-testid=settings] h2').textContent(), 'Settings');
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('the folded sidebar leaves a rail whose new chat, search and Settings work', async () => {
    const { context, page, errors } = await open('en-US', { viewport: { width: 1200, height: 800 } });
    await configure(page, { baseUrl: h.model.baseUrl, model: 'scripted-model' });
    h.model.enqueue(reply.text('The rail answer.'));
    await send(page, 'Tell me about the lighthouse');
    await page.getByText('The rail answer.').waitFor({ timeout: 20_000 });
    assert.equal(await page.getByTestId('sidebar-rail').count(), 0, 'no rail while the sidebar shows');
    // Settings is a drawer above everything, the sidebar included; where
    // it shows does not depend on the sidebar (compared once it is folded).
    const drawer = page.getByTestId('settings');
    const onTop = () => page.evaluate(() => {
      const d = document.querySelector('[data-testid=settings]');
      const r = d.getBoundingClientRect();
      const inDrawer = d.contains(document.elementFromPoint(r.x + r.width / 2, r.y + 40));
      const overSidebar = document.elementFromPoint(10, 300)?.className;
      return { inDrawer, overSidebar };
    });
    await page.getByTestId('open-settings').click();
    await drawer.waitFor();
    await settled(page);
    const drawerBox = await drawer.boundingBox();
    assert.ok(drawerBox && drawerBox.y === 0 && drawerBox.height === 800, JSON.stringify(drawerBox));
    assert.deepEqual(await onTop(), { inDrawer: true, overSidebar: 'drawer-backdrop' });
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });

    await page.getByTestId('collapse-sidebar').click();
    const rail = page.getByTestId('sidebar-rail');
    await rail.waitFor();
    await settled(page);
    assert.equal(await sidebarVisible(page), false);
    // A narrow column at the left, the conversation beside it.
    const box = await rail.boundingBox();
    assert.ok(box && box.x === 0 && box.width > 30 && box.width < 80, JSON.stringify(box));
    const main = await page.locator('main.main').boundingBox();
    assert.ok(main && main.x >= box.x + box.width - 1, JSON.stringify(main));
    assert.equal(await rail.getAttribute('aria-label'), 'Quick actions');
    for (const [id, name] of [['rail-new-chat', 'New chat'], ['rail-search', 'Search conversations'], ['rail-settings', 'Settings']]) {
      const button = rail.getByRole('button', { name, exact: true });
      assert.equal(await button.getAttribute('data-testid'), id);
      assert.equal(await button.getAttribute('title'), name);
      assert.equal(await button.isVisible(), true, id);
    }

    // Settings opens Settings; Esc closes it, the rail stays.
    await page.getByTestId('rail-settings').click();
    await page.getByTestId('settings').waitFor();
    await settled(page);
    assert.deepEqual(await drawer.boundingBox(), drawerBox, 'the same drawer with the sidebar folded');
    assert.deepEqual(await onTop(), { inDrawer: true, overSidebar: 'drawer-backdrop' });
    await page.keyboard.press('Escape');
    await page.getByTestId('settings').waitFor({ state: 'detached' });
    assert.equal(await rail.isVisible(), true);

    // New chat leaves the conversation for the session creator, the
    // sidebar still folded.
    assert.equal(await page.getByTestId('session-creator').count(), 0);
    await page.getByTestId('rail-new-chat').click();
    await page.getByTestId('session-creator').waitFor();
    assert.equal(await page.locator('.topbar-title').textContent(), 'New chat');
    assert.equal(await page.getByText('The rail answer.').count(), 0);
    assert.equal(await rail.isVisible(), true);

    // Search brings the sidebar back with the search box focused, and it
    // finds the conversation.
    await page.getByTestId('rail-search').click();
    await page.getByTestId('sidebar-rail').waitFor({ state: 'detached' });
    await settled(page);
    assert.equal(await sidebarVisible(page), true);
    assert.equal(await page.evaluate(() => document.activeElement?.dataset?.testid), 'session-search');
    await page.keyboard.type('lighthouse');
    await page.getByTestId('search-result').first().waitFor({ timeout: 20_000 });
    await page.getByTestId('search-result').first().click();
    await page.getByText('The rail answer.').waitFor({ timeout: 10_000 });
    assert.deepEqual(errors, []);
    await context.close();
  });

  test('a narrow screen keeps no rail: the sidebar folds away whole', async () => {
    const { context, page, errors } = await open('en-US', { viewport: { width: 400, height: 800 } });
    await settled(page);
    assert.equal(await sidebarVisible(page), false, 'folded by default under 768 px');
    assert.equal(await page.getByTestId('sidebar-rail').isVisible(), false);
    const main = await page.locator('main.main').boundingBox();
    assert.equal(main?.x, 0, 'the conversation takes the whole width');
    assert.deepEqual(errors, []);
    await context.close();
  });
});
