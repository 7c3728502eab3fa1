// paint.mjs's check on Chromium's own screenshots: a blank box is blank, text is not, and
// waitPainted gives up on a box that stays blank.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium } from './harness.mjs';
import { hasDarkPixel, waitPainted } from './paint.mjs';

test('hasDarkPixel tells a blank box from one with text; waitPainted waits for text', { timeout: 120_000 }, async (t) => {
  const browser = await launchChromium();
  t.after(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 400, height: 300 } });
  await page.setContent(`<div id="blank" style="width:200px;height:80px;background:#fff;border:1px solid #ccc"></div>
    <div id="text" style="width:200px;height:80px;background:#fff;color:#222;font:15px sans-serif">Demo</div>
    <div id="later" style="width:200px;height:80px;background:#fff;color:#222"></div>`);
  for (const omitBackground of [false, true]) {
    assert.equal(hasDarkPixel(await page.locator('#blank').screenshot({ omitBackground })), false, 'a blank box');
    assert.equal(hasDarkPixel(await page.locator('#text').screenshot({ omitBackground })), true, 'a box with text');
  }
  await assert.rejects(waitPainted(page.locator('#blank'), 300), /still blank/);
  setTimeout(() => page.evaluate(() => { document.getElementById('later').textContent = 'painted later'; }), 400);
  assert.ok(await waitPainted(page.locator('#later'), 10_000) >= 1, 'blank at first, then painted');
});
