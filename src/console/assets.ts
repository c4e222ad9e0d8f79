/**
 * The console's stylesheet and its one progressive-enhancement script, served from the API itself
 * (`/console/static/*`): no CDN, no build step, and the CSP allows scripts from 'self' only.
 * Every page works without the script; it only refreshes the overview in place.
 */
import { CHART_CSS } from './charts/svg.js';

export const CONSOLE_CSS = `
:root { font-family: system-ui, sans-serif; color: #1d232a; background: #f6f7f9; }
body { margin: 0; }
header { background: #1d232a; color: #fff; padding: .6rem 1rem; display: flex; gap: 1.2rem; align-items: center; }
header a { color: #fff; text-decoration: none; }
header .who { margin-left: auto; font-size: .85rem; opacity: .85; }
header form { display: inline; }
main { padding: 1rem; max-width: 1200px; }
table { border-collapse: collapse; background: #fff; width: 100%; font-size: .9rem; }
th, td { border: 1px solid #d5d9de; padding: .3rem .5rem; text-align: left; vertical-align: top; }
th { background: #eef0f3; }
.status { font-weight: 600; }
.status-FAILED { color: #b3261e; } .status-SUCCEEDED { color: #1b7a3a; } .status-CANCELLED { color: #6b6f76; }
.outcome-PERMANENT_ERROR, .outcome-RETRYABLE_ERROR { color: #b3261e; } .outcome-SUCCEEDED { color: #1b7a3a; } .outcome-CANCELLED { color: #6b6f76; }
.cards { display: flex; gap: .8rem; flex-wrap: wrap; margin-bottom: 1rem; }
.card { background: #fff; border: 1px solid #d5d9de; padding: .6rem 1rem; min-width: 8rem; }
.card b { display: block; font-size: 1.6rem; }
form.filters { display: flex; gap: .6rem; flex-wrap: wrap; align-items: end; margin-bottom: 1rem; }
label { display: block; font-size: .85rem; margin-bottom: .5rem; }
input, select, textarea, button { font: inherit; }
textarea, pre.payload { width: 100%; min-height: 16rem; box-sizing: border-box; font-family: ui-monospace, monospace; font-size: .85rem; }
pre.payload { background: #fff; border: 1px solid #d5d9de; margin: 0; padding: .4rem; overflow: auto; }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
.error { color: #b3261e; }
.errors { border: 1px solid #b3261e; background: #fdecea; padding: .5rem 1rem; }
.flash { border: 1px solid #1b7a3a; background: #e7f5ec; padding: .5rem 1rem; }
.actions form { display: inline-block; margin-right: 1rem; vertical-align: top; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; background: #fff; padding: .6rem; border: 1px solid #d5d9de; }
dd { margin: 0; word-break: break-all; }
.muted { color: #6b6f76; font-size: .85rem; }
${CHART_CSS}`;

export const CONSOLE_JS = `
(function () {
  'use strict';
  var target = document.querySelector('[data-refresh]');
  if (!target || !window.fetch || !window.DOMParser) return;
  var seconds = Number(target.getAttribute('data-refresh')) || 15;
  function refresh() {
    fetch(window.location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } })
      .then(function (res) { return res.ok ? res.text() : Promise.reject(res.status); })
      .then(function (text) {
        var doc = new DOMParser().parseFromString(text, 'text/html');
        var fresh = doc.querySelector('[data-refresh]');
        if (fresh) target.replaceChildren.apply(target, Array.prototype.slice.call(fresh.childNodes));
      })
      .catch(function () {
        var stamp = document.getElementById('refreshed-at');
        if (stamp) stamp.textContent += ' (refresh failed; retrying)';
      });
  }
  window.setInterval(refresh, seconds * 1000);
})();
`;
