// The app in Firefox and in WebKit, each behind the same few calls: Debian's
// firefox-esr driven over WebDriver BiDi (puppeteer-core, which downloads
// nothing), and WebKitGTK's MiniBrowser through WebKitWebDriver
// (selenium-webdriver) on a virtual display (xvfb-run). Both start with a
// fresh profile.
import puppeteer from 'puppeteer-core';
import { Builder, By, Key } from 'selenium-webdriver';
import { freePort, spawnServer } from '../e2e/support.mjs';

const sel = (testid) => `[data-testid="${testid}"]`;

/** Waits until `check()` is truthy (polled), or fails saying `what`. */
async function until(check, what, timeout) {
  for (const end = Date.now() + timeout; ;) {
    const got = await check();
    if (got) return got;
    if (Date.now() > end) throw new Error(`${what}: not within ${timeout} ms`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

async function firefox() {
  const browser = await puppeteer.launch({ browser: 'firefox', executablePath: process.env.FIREFOX ?? '/usr/bin/firefox-esr', headless: true, protocol: 'webDriverBiDi' });
  const page = await browser.newPage();
  return {
    goto: (url) => page.goto(url),
    evaluate: (fn, ...args) => page.evaluate(fn, ...args),
    fill: (testid, text) => page.locator(sel(testid)).fill(text),
    click: (testid) => page.locator(sel(testid)).click(),
    enter: async (testid, text) => {
      await page.locator(sel(testid)).fill(text);
      await page.keyboard.press('Enter');
    },
    upload: async (testid, path) => (await page.waitForSelector(sel(testid))).uploadFile(path),
    close: () => browser.close(),
  };
}

async function webkit() {
  const port = await freePort();
  const server = spawnServer('xvfb-run', ['-a', process.env.WEBKIT_DRIVER ?? 'WebKitWebDriver', `--port=${port}`], {}, { group: true });
  const url = `http://127.0.0.1:${port}`;
  await until(async () => {
    try {
      return (await (await fetch(`${url}/status`)).json()).value?.ready;
    } catch {
      return false;
    }
  }, `WebKitWebDriver on port ${port} (${server.output()})`, 30_000);
  const binary = process.env.WEBKIT_BROWSER ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
  const caps = { browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary, args: ['--automation'] } };
  const driver = await new Builder().usingServer(url).withCapabilities(caps).build();
  const find = (testid) => driver.findElement(By.css(sel(testid)));
  return {
    goto: (to) => driver.get(to),
    evaluate: (fn, ...args) => driver.executeScript(`return (${fn})(...arguments)`, ...args),
    fill: async (testid, text) => {
      const el = await find(testid);
      await el.clear();
      await el.sendKeys(text);
    },
    click: async (testid) => (await find(testid)).click(),
    enter: async (testid, text) => {
      const el = await find(testid);
      await el.clear();
      await el.sendKeys(text, Key.ENTER);
    },
    upload: async (testid, path) => (await find(testid)).sendKeys(path),
    close: async () => {
      try {
        await driver.quit();
      } finally {
        await server.stop();
      }
    },
  };
}

/**
 * Opens `engine` (`firefox` or `webkit`). The handle also waits for what the
 * page shows: `waitUntil(fn, arg, what)` until `fn(arg)`, run in the page,
 * is truthy; `waitFor(testid)` until an element is there; `waitText(text)`
 * until the page's text has it.
 */
export async function openEngine(engine) {
  const b = engine === 'firefox' ? await firefox() : await webkit();
  b.waitUntil = (fn, arg, what, timeout = 30_000) => until(() => b.evaluate(fn, arg), `${what} in ${engine}`, timeout);
  b.waitFor = (testid, timeout = 30_000) => until(() => b.evaluate((s) => document.querySelector(s) !== null, sel(testid)), `${testid} in ${engine}`, timeout);
  b.waitText = (text, timeout = 30_000) => until(() => b.evaluate((t) => document.body.innerText.includes(t), text), `"${text}" in ${engine}`, timeout);
  return b;
}

/** `engine` with the app at `appUrl` open, pointed at the scripted model at `baseUrl`. */
export async function openApp(engine, appUrl, baseUrl) {
  const b = await openEngine(engine);
  try {
    await b.goto(appUrl);
    await b.waitFor('composer-input');
    await b.click('open-settings');
    await b.waitFor('settings-base-url');
    await b.fill('settings-base-url', baseUrl);
    await b.fill('settings-model', 'scripted-model');
    await b.click('settings-save');
    await b.waitUntil((u) => (localStorage.getItem('air-agent-settings') || '').includes(u), baseUrl, 'the settings saved');
    return b;
  } catch (e) {
    await b.close();
    throw e;
  }
}
