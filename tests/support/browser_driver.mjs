// A headless Chromium for the tests, driven through playwright-core: one long-running process, one browser, one
// context (viewport 1280x800) with one page at a time. It reads JSON commands on stdin, one per line, and writes
// one JSON answer per line on stdout, in order; tests/support/browser.py is its client.
//
//   node browser_driver.mjs CHROMIUM ARGS    (the browser's path, and its flags as a JSON list: CHROMIUM_ARGS of
//                                             benchmarks/browser.py)
//
// playwright-core is found through NODE_PATH (benchmarks/browser.py installs it; driver_path() is the folder):
// an ES module's import ignores NODE_PATH, so it is loaded with require.
//
// First line out: {"ready": true, "version": ...} once the browser runs (or {"error": ...} and exit 1).
// Commands, {"command": NAME, ...arguments}, and their answers:
//   goto {url, headers?}            -> {status, url, title}   (headers: extra request headers, sent from this
//                                                               page on until the next goto)
//   text {selector}                 -> {texts: [innerText of each match]}
//   click {selector}                -> {url, title, status?}  (status when the click navigated; after the load)
//   fill {selector, value}          -> {}
//   submit {selector}               -> {url, title, status}   (a form is submitted, another element gets Enter;
//                                                               waits for the navigation and its load)
//   attr {selector, name}           -> {value}                (null when the element lacks the attribute)
//   count {selector}                -> {count}
//   screenshot {path, fullPage?}    -> {path}
//   evaluate {expression}           -> {value}                (a JavaScript expression; JSON-serializable
//                                                               values; undefined, a function: null)
//   new_context {httpCredentials?, javaScriptEnabled?}  -> {}  (closes the current context and its page;
//                                    httpCredentials {username, password}: answered to HTTP Basic challenges.
//                                    A page that asks for them when the context has none is not shown: goto
//                                    fails with net::ERR_INVALID_AUTH_CREDENTIALS. Wrong ones give its 401 page.)
//   quit                            -> {}                     (then the process exits)
// An "id" in a command is echoed in its answer. A failed command is answered {error: message}; the process goes
// on. Selectors are Playwright's (CSS by default); those of click, fill, submit and attr must match one element.

import { createRequire } from "node:module";
import { createInterface } from "node:readline";

const require = createRequire(import.meta.url);
const { chromium } = require("playwright-core");

const VIEWPORT = { width: 1280, height: 800 };
// how long one action or navigation may wait (for an element, a response): a ceiling, below the client's
const TIMEOUT_MS = Number(process.env.HUDI_METASTORE_BROWSER_TIMEOUT_MS || 60000);

const executablePath = process.argv[2];
const CHROMIUM_ARGS = JSON.parse(process.argv[3]);

function answer(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

// an error's message without the terminal colours of Playwright's call logs
function message(error) {
  const text = error && error.message ? error.message : String(error);
  return text.replace(/\u001b\[[0-9;]*m/g, "");
}

let browser;
let context;
let page;

async function openContext(options = {}) {
  if (context) await context.close();
  context = await browser.newContext({ ...options, viewport: VIEWPORT });
  context.setDefaultTimeout(TIMEOUT_MS);
  context.setDefaultNavigationTimeout(TIMEOUT_MS);
  page = await context.newPage();
}

function isMainNavigation(response) {
  return response.request().isNavigationRequest() && response.frame() === page.mainFrame();
}

// Run action (a click, a submission), then wait for the page it opened, when it opened one, to load: the answer
// is where the page is then, with the status of the navigation's response. A navigation the action started is
// pending once the action returned (Playwright waits for it before the next locator action, here a wait for
// <html>); with mustNavigate, the action's navigation may also start later (a form submission is scheduled) and
// its commit is waited for.
async function navigating(action, mustNavigate) {
  let response = null;
  const seen = (r) => {
    if (isMainNavigation(r)) response = r;
  };
  page.on("response", seen);
  try {
    const committed = mustNavigate
      ? page.waitForEvent("framenavigated", { predicate: (frame) => frame === page.mainFrame() })
      : null;
    committed?.catch(() => {}); // awaited below; a failed action must not leave it unhandled
    await action();
    if (committed) await committed;
    await page.locator("html").waitFor({ state: "attached" });
    await page.waitForLoadState("load");
    const landing = { url: page.url(), title: await page.title() };
    if (response) landing.status = response.status();
    return landing;
  } finally {
    page.off("response", seen);
  }
}

const commands = {
  async goto({ url, headers }) {
    await page.setExtraHTTPHeaders(headers || {});
    const response = await page.goto(url);
    return { status: response ? response.status() : null, url: page.url(), title: await page.title() };
  },

  async text({ selector }) {
    return { texts: await page.locator(selector).allInnerTexts() };
  },

  async click({ selector }) {
    return await navigating(() => page.locator(selector).click(), false);
  },

  async fill({ selector, value }) {
    await page.locator(selector).fill(String(value));
    return {};
  },

  async submit({ selector }) {
    const locator = page.locator(selector);
    const isForm = await locator.evaluate((element) => element instanceof HTMLFormElement);
    const action = isForm ? () => locator.evaluate((form) => form.requestSubmit()) : () => locator.press("Enter");
    return await navigating(action, true);
  },

  async attr({ selector, name }) {
    return { value: await page.locator(selector).getAttribute(name) };
  },

  async count({ selector }) {
    return { count: await page.locator(selector).count() };
  },

  async screenshot({ path, fullPage }) {
    await page.screenshot({ path, fullPage: Boolean(fullPage) });
    return { path };
  },

  async evaluate({ expression }) {
    const value = await page.evaluate(expression);
    return { value: value === undefined ? null : value };
  },

  async new_context({ httpCredentials, javaScriptEnabled }) {
    const options = {};
    if (httpCredentials) options.httpCredentials = httpCredentials;
    if (javaScriptEnabled !== undefined) options.javaScriptEnabled = Boolean(javaScriptEnabled);
    await openContext(options);
    return {};
  },
};

async function main() {
  try {
    browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, headless: true });
    await openContext();
  } catch (error) {
    answer({ error: `cannot launch ${executablePath}: ${message(error)}` });
    process.exit(1);
  }
  answer({ ready: true, version: browser.version() });
  let farewell = {};
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    let request;
    try {
      request = JSON.parse(line);
    } catch (error) {
      answer({ error: `not a JSON command: ${error.message}` });
      continue;
    }
    if (request === null || typeof request !== "object" || Array.isArray(request)) {
      answer({ error: `not a command: ${line}` });
      continue;
    }
    const echo = request.id === undefined ? {} : { id: request.id };
    if (request.command === "quit") {
      farewell = echo;
      break;
    }
    const run = Object.hasOwn(commands, request.command) ? commands[request.command] : undefined;
    if (!run) {
      answer({ ...echo, error: `unknown command ${JSON.stringify(request.command)}` });
      continue;
    }
    try {
      answer({ ...echo, ...(await run(request)) });
    } catch (error) {
      answer({ ...echo, error: message(error) });
    }
  }
  // quit, or stdin closed: the browser goes with the process (and its profile folder with the browser)
  try {
    await browser.close();
  } finally {
    answer(farewell);
    process.exit(0);
  }
}

// a stray rejection (a page event after its command answered) is logged, not the end of the process
process.on("unhandledRejection", (error) => process.stderr.write(`unhandled: ${error && error.stack}\n`));

main();
