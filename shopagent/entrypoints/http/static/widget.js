/* shopagent chat widget: one <script> tag, no dependencies, no build step.
 *
 *   <script src="https://chat.shop.example/widget.js" defer
 *           data-token-url="/chat-token"   (your backend: answers {"token": "..."} for the signed-in customer)
 *           data-title="Ask our shop" data-accent="#1f5fbf"></script>
 *
 * data-api        API base URL (default: where this script comes from)
 * data-token      a chat token rendered into the page by your backend (instead of data-token-url)
 * data-token-url  fetched with the browser's cookies (credentials: "include") on first use
 *                 neither: an anonymous visitor token, if the shop turned http.anonymous_chat on
 * data-title      the panel's heading          data-accent  the colour of buttons and your messages
 * data-product-url  a link for each product card, e.g. "/products/{slug}" ({id} works too)
 * data-mode       "page" fills the page (the chat page at / uses it); default: a launcher button
 *
 * Answers stream over server-sent events (fetch + a stream reader: EventSource can neither POST
 * nor send the Authorization header). The conversation id (and an anonymous token) is kept in
 * localStorage per API base, so a reload shows the conversation again.
 */
(function () {
  "use strict";

  var script = document.currentScript || document.querySelector('script[src*="widget.js"]');
  var data = (script && script.dataset) || {};
  var API = (data.api || new URL(script.src, location.href).origin).replace(/\/+$/, "");
  var TITLE = data.title || "Shopping assistant";
  var ACCENT = /^#[0-9a-fA-F]{3,8}$|^[a-zA-Z]+$|^(rgb|hsl)a?\([\d\s.,%]+\)$/.test(data.accent || "") ? data.accent : "#1f5fbf";
  var PAGE = data.mode === "page";
  var LOCALE = "{{locale}}";  // the store's, filled in by the server that serves this file
  var STORE_KEY = "shopagent:" + API;
  var BUSY = "The assistant is busy right now, please try again in a moment.";
  var EXPIRED = "Your session has expired — please reload the page to continue.";

  // -- storage -----------------------------------------------------------------------------

  function load() {
    try { return JSON.parse(localStorage.getItem(STORE_KEY)) || {}; } catch (e) { return {}; }
  }
  function save(patch) {
    var state = load();
    for (var k in patch) { if (patch[k] === null) delete state[k]; else state[k] = patch[k]; }
    try { localStorage.setItem(STORE_KEY, JSON.stringify(state)); } catch (e) { /* private mode: this page only */ }
  }

  // -- errors in words -----------------------------------------------------------------------

  function ChatError(words, code) { this.words = words; this.code = code; }

  function describe(status, code, message, retryAfter) {
    if (code === "token_expired") return new ChatError(EXPIRED, code);
    if (status === 401) return new ChatError("Your chat session is not valid (" + message + "). Please reload the page.", code);
    if (code === "anonymous_chat_disabled") {
      return new ChatError(PAGE ? "This chat page needs a chat token in its address (…/#token=YOUR_TOKEN); " +
        "`shopagent demo` prints such a link." : "Please sign in to the shop to chat with its assistant.", code);
    }
    if (code === "shutting_down") return new ChatError("The assistant is restarting — please send your message again in a moment.", code);
    if (status === 429 || status === 503) {
      return new ChatError(BUSY + (retryAfter ? " (about " + retryAfter + " s)" : ""), code);
    }
    if (code === "context_limit_reached") return new ChatError("This conversation is full — please start a new one.", code);
    if (code === "conversation_busy") return new ChatError("The assistant is still answering your previous message — one moment, please.", code);
    if (status === 404) return new ChatError("That conversation no longer exists; your next message starts a new one.", code);
    if (status === 504) return new ChatError("The assistant took too long to answer — please try again.", code);
    return new ChatError("Sorry, something went wrong: " + (message || "error " + status) + ".", code);
  }

  // The browser does not say why a request failed: no connection, the server down, or this page's origin not
  // allowed by the server (CORS). Shoppers get the words they can act on; the site's developers, the console.
  function unreachable() {
    console.warn("shopagent: " + API + " could not be reached. If it is up, check that it allows this page's " +
      "origin (" + location.origin + ") in http.cors_origins.");
    return new ChatError("The assistant cannot be reached right now. Please check your connection and try again.",
      "unreachable");
  }

  async function failure(response) {
    var body = null;
    try { body = await response.json(); } catch (e) { /* not JSON: a proxy's page */ }
    var error = (body && body.error) || {};
    return describe(response.status, error.code, error.message, response.headers.get("Retry-After"));
  }

  async function call(path, options) {
    var response;
    try { response = await fetch(API + path, options); } catch (e) { throw unreachable(); }
    if (!response.ok) throw await failure(response);
    return response;
  }

  // -- tokens --------------------------------------------------------------------------------

  var tokenInMemory = null;

  function tokenFromAddress() {
    var match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (!PAGE || !match) return null;
    var token = decodeURIComponent(match[1]);
    save({ token: token, tokenExpiresAt: null, conversationId: load().token === token ? load().conversationId : null });
    history.replaceState(null, "", location.pathname + location.search);  // not in the history, not in a shared link
    return token;
  }

  // When a token ends, from its own payload ("v2.<base64url JSON with exp>.<signature>"); null if unknown.
  function expiryOf(token) {
    try {
      var payload = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
      var exp = JSON.parse(atob(payload + "===".slice((payload.length + 3) % 4))).exp;
      return typeof exp === "number" ? exp * 1000 : null;
    } catch (e) { return null; }
  }

  function usable(token, expiresAt) {
    var ends = expiresAt ? Date.parse(expiresAt) - 60000 : expiryOf(token);  // a visitor's is renewed early
    return !ends || ends > Date.now();
  }

  // One request for a token at a time: the page's first look for a kept conversation and a message typed
  // meanwhile share it (two visitor tokens would be two visitors, the second one's conversation lost).
  var tokenPending = null;

  function token() {
    if (tokenInMemory) return Promise.resolve(tokenInMemory);
    if (!tokenPending) {
      tokenPending = newToken().finally(function () { tokenPending = null; });
    }
    return tokenPending;
  }

  async function newToken() {
    if (data.token) return (tokenInMemory = data.token);
    if (data.tokenUrl) {
      var response;
      try { response = await fetch(data.tokenUrl, { credentials: "include", headers: { Accept: "application/json" } }); }
      catch (e) { throw unreachable(); }
      if (response.status === 401 || response.status === 403) {
        throw new ChatError("Please sign in to the shop to chat with its assistant.", "signed_out");
      }
      if (!response.ok) throw new ChatError("The shop could not start a chat session (error " + response.status + ").", "token_url");
      return (tokenInMemory = (await response.json()).token);
    }
    var state = load();
    var kept = tokenFromAddress() || state.token;
    if (kept && usable(kept, state.tokenExpiresAt)) return (tokenInMemory = kept);
    if (kept) save({ token: null, tokenExpiresAt: null });  // an ended token kept would end every later visit too
    var visitor;
    try { visitor = await (await call("/api/assistant-agent/visitor-token", { method: "POST" })).json(); }
    catch (error) { throw kept && error.code === "anonymous_chat_disabled" ? linkEnded() : error; }
    // A new visitor is a new user: the old conversation was someone else's as far as the API knows.
    save({ token: visitor.token, tokenExpiresAt: visitor.expiresAt, conversationId: null });
    return (tokenInMemory = visitor.token);
  }

  function linkEnded() {
    return new ChatError(PAGE ? "This chat link has expired or is no longer valid. Please open a new one " +
      "(…/#token=YOUR_TOKEN): `shopagent demo` prints a fresh link each time it starts." : EXPIRED, "token_expired");
  }

  function refused(error) {
    return error instanceof ChatError && (error.code === "token_expired" || error.code === "unauthorized");
  }

  // The API refused the token (it ended, or the shop changed its secret): forget it, and send `request` once more
  // with a new one where this page can get one (the shop's token URL, a visitor token); else say what to do.
  async function renewed(error, request) {
    if (!refused(error)) throw error;
    tokenInMemory = null;
    if (data.token) throw error;  // rendered into the page by the shop: a reload brings a new one
    if (!data.tokenUrl) save({ token: null, tokenExpiresAt: null });
    try { await token(); } catch (again) { throw again.code === "anonymous_chat_disabled" ? linkEnded() : again; }
    return await request();
  }

  async function authorized(extra) {
    var headers = { Authorization: "Bearer " + (await token()) };
    for (var k in extra || {}) headers[k] = extra[k];
    return headers;
  }

  // -- server-sent events --------------------------------------------------------------------

  async function readEvents(response, onEvent) {
    var reader = response.body.getReader();
    var decoder = new TextDecoder();
    var buffer = "";
    for (;;) {
      var chunk = await reader.read();
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n?/g, "\n");
      var end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        var block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        var kind = "message", lines = [];
        block.split("\n").forEach(function (line) {
          if (line.startsWith("event:")) kind = line.slice(6).trim();
          else if (line.startsWith("data:")) lines.push(line.slice(5).replace(/^ /, ""));
        });
        if (lines.length) onEvent(kind, JSON.parse(lines.join("\n")));
      }
    }
  }

  // -- product cards -------------------------------------------------------------------------

  // A card from the stream's `products` or from a stored tool result (a search hit or product details).
  function card(p, asked) {
    return {
      id: p.id != null ? p.id : p.productId, slug: p.slug, name: p.name, currency: p.currency || "EUR",
      price: p.price, discountPrice: p.discountPrice !== undefined ? p.discountPrice : p.discountedPrice,
      priceText: p.priceText || null, discountPriceText: p.discountPriceText || null,
      mainImage: p.mainImage || null, inStock: !!p.inStock, asked: asked || [],
      url: web(p.url), cartUrl: web(p.cartUrl), priceFrom: !!p.priceFrom,
    };
  }

  // A link the catalog gave, if it is a web address (never a script).
  function web(url) {
    return typeof url === "string" && /^https?:\/\//i.test(url) ? url : null;
  }

  // The sizes and colours the search asked for: a card says whether the product has them.
  function askedOf(args) {
    var filters = (args && (args.filters || args)) || {};
    return [].concat(filters.sizes || [], filters.colors || []);
  }

  function cardsOfResult(result, args) {
    var found = result && (result.structuredContent || result);
    if (!found || typeof found !== "object") return [];
    if (Array.isArray(found.products)) return found.products.map(function (p) { return card(p, askedOf(args)); });
    if (found.productId != null && found.name) return [card(found, askedOf(args))];
    return [];
  }

  // The store pages a store-information result cites: those of its strong passages, each once.
  function sourcesOfResult(result) {
    var found = result && (result.structuredContent || result);
    if (!found || !Array.isArray(found.passages)) return [];
    return found.passages.filter(function (p) { return p && p.grade === "strong" && p.title; })
      .map(function (p) { return { page: p.page, title: p.title, url: p.url || null }; });
  }

  function uniqueSources(sources) {
    var seen = {};
    return sources.filter(function (s) { var fresh = !seen[s.page]; seen[s.page] = true; return fresh; }).slice(0, 2);
  }

  // The conversation as bubbles: user texts, and each answer with the cards (and cited store
  // pages) of its turn's tool results.
  function turnsOf(messages) {
    var turns = [], cards = [], sources = [], args = {};
    messages.forEach(function (m) {
      (m.toolCalls || []).forEach(function (c) { args[c.id || c.name] = c.arguments; args[c.name] = c.arguments; });
      (m.toolResults || []).forEach(function (r) {
        if (r.isError || r.truncated) return;
        cards = cards.concat(cardsOfResult(r.result, args[r.id || r.name] || args[r.name]));
        sources = sources.concat(sourcesOfResult(r.result));
      });
      var calls = (m.toolCalls || []).length, results = (m.toolResults || []).length;
      if (m.role === "user" && m.text && !results) { turns.push({ role: "user", text: m.text }); cards = []; sources = []; }
      else if (m.role === "model" && m.text && !calls) {
        var shown = Array.isArray(m.products) ? withAsked(m.products, cards) : presented(m.text, unique(cards));
        turns.push({ role: "assistant", text: m.text, cards: shown, sources: uniqueSources(sources) });
        cards = []; sources = [];
      }
    });
    return turns;
  }

  // The cards of the products an answer names, in the order it names them (as the server's
  // `products` does): by the whole name, or by a word of the name no other card's name has
  // ("the Kiruna boot"). Never a card for a product the text left out.
  function presented(text, cards) {
    var folded = (text || "").toLowerCase(), taken = [], at = {};
    var words = function (t) { return t.toLowerCase().match(/[\p{L}\p{N}]+/gu) || []; };
    cards.slice().sort(function (a, b) { return b.name.length - a.name.length; }).forEach(function (c) {
      var start = folded.indexOf(c.name.toLowerCase()), end = start + c.name.length;
      if (start < 0 || taken.some(function (t) { return t[0] < end && start < t[1]; })) return;
      taken.push([start, end]);
      at[c.id] = start;
    });
    var said = {}, re = /[\p{L}\p{N}]+/gu, m;
    while ((m = re.exec(folded))) if (!(m[0] in said)) said[m[0]] = m.index;
    cards.forEach(function (c) {
      if (c.id in at) return;
      var others = {};
      cards.forEach(function (o) { if (o.id !== c.id) words(o.name).forEach(function (w) { others[w] = true; }); });
      var own = words(c.name).filter(function (w) { return w.length >= 4 && !others[w] && w in said; });
      if (own.length) at[c.id] = Math.min.apply(null, own.map(function (w) { return said[w]; }));
    });
    return cards.filter(function (c) { return c.id in at; }).sort(function (a, b) { return at[a.id] - at[b.id]; });
  }

  // The server's cards of what an answer presents, each with what its search asked (size, colour).
  function withAsked(products, cards) {
    var seen = {};
    cards.forEach(function (c) { if (!(c.id in seen)) seen[c.id] = c; });
    return products.map(function (p) { var c = card(p, []); c.asked = (seen[c.id] || c).asked; return c; });
  }

  function unique(cards) {
    var seen = {};
    return cards.filter(function (c) { var fresh = !seen[c.id]; seen[c.id] = true; return fresh; });
  }

  // A price as the server wrote it for the store's customers (as in the answer's text); else in the store's locale.
  function money(written, amount, currency) {
    if (written) return written;
    try { return new Intl.NumberFormat(LOCALE, { style: "currency", currency: currency }).format(Number(amount)); }
    catch (e) { return amount + " " + currency; }
  }

  // -- the view ------------------------------------------------------------------------------

  var CSS = `
  :host { all: initial; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1d21; }
  * { box-sizing: border-box; }
  .launcher { position: fixed; right: 20px; bottom: 20px; z-index: 2147483000; border: 0; border-radius: 999px;
    padding: 12px 18px; background: var(--accent); color: #fff; font: inherit; font-weight: 600; cursor: pointer;
    box-shadow: 0 4px 14px rgba(0,0,0,.25); }
  .panel { position: fixed; right: 20px; bottom: 80px; z-index: 2147483000; width: 380px; height: min(620px, calc(100vh - 110px));
    display: flex; flex-direction: column; background: #fff; border-radius: 14px; overflow: hidden;
    box-shadow: 0 10px 40px rgba(0,0,0,.28); }
  .panel[hidden] { display: none; }
  .page .panel { position: static; width: auto; max-width: 780px; height: 100vh; margin: 0 auto; border-radius: 0;
    box-shadow: 0 0 0 1px #dde1e6; }
  header { display: flex; align-items: center; gap: 8px; padding: 12px 14px; background: var(--accent); color: #fff; }
  header h2 { flex: 1; margin: 0; font-size: 16px; font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  header button { border: 1px solid rgba(255,255,255,.7); background: transparent; color: #fff; border-radius: 6px;
    padding: 4px 10px; font: inherit; font-size: 13px; cursor: pointer; }
  .log { position: relative; flex: 1; overflow-y: auto; padding: 14px; display: flex; flex-direction: column; gap: 10px; background: #f6f7f9; }
  .hint { color: #4a4f57; margin: auto 0; text-align: center; padding: 0 18px; }
  .msg { max-width: 88%; padding: 9px 12px; border-radius: 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
  .user { align-self: flex-end; background: var(--accent); color: #fff; border-bottom-right-radius: 4px; }
  .assistant { align-self: flex-start; background: #fff; border: 1px solid #dde1e6; border-bottom-left-radius: 4px; }
  .assistant.pending::after { content: "…"; }
  .error { align-self: stretch; background: #fff4f2; color: #8a1c0c; border: 1px solid #f1b5aa; }
  .error .actions { display: block; margin-top: 6px; }
  .error button { font: inherit; font-size: 14px; font-weight: 600; padding: 5px 12px; border-radius: 6px; cursor: pointer;
    background: #fff; color: #8a1c0c; border: 1px solid #8a1c0c; }
  .sources { margin: 6px 0 0; font-size: 0.85em; opacity: 0.85; }
  .sources a { color: inherit; }
  .cards { list-style: none; margin: 0; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 8px; }
  .card { background: #fff; border: 1px solid #dde1e6; border-radius: 10px; overflow: hidden; display: flex; flex-direction: column; }
  .card img, .card .noimg { width: 100%; aspect-ratio: 4 / 3; object-fit: cover; background: #eceef1; display: block; }
  .card .body { padding: 8px 10px 10px; display: flex; flex-direction: column; gap: 3px; }
  .card p { margin: 0; }
  .card .name { font-weight: 600; font-size: 14px; color: #1b1d21; text-decoration: none; }
  .card a.name:hover { text-decoration: underline; }
  .card .links { display: flex; gap: 10px; flex-wrap: wrap; margin-top: 2px; font-size: 13px; }
  .card .links a { color: var(--accent); font-weight: 600; }
  .price { font-size: 14px; }
  .price s { color: #5b616b; margin-right: 6px; }
  .price .now { color: #a3240f; font-weight: 700; }
  .stock { font-size: 13px; color: #1d6b35; }
  .stock.out { color: #8a1c0c; }
  .status { min-height: 1.45em; margin: 0; padding: 0 14px; font-size: 13px; color: #4a4f57; background: #f6f7f9; }
  form { display: flex; gap: 8px; padding: 10px; border-top: 1px solid #dde1e6; background: #fff; }
  input { flex: 1; min-width: 0; font: inherit; padding: 10px 12px; border: 1px solid #8d939c; border-radius: 8px; color: #1b1d21; }
  form button { font: inherit; font-weight: 600; padding: 10px 16px; border: 0; border-radius: 8px; background: var(--accent);
    color: #fff; cursor: pointer; }
  form button:disabled { opacity: .6; cursor: default; }
  :focus-visible { outline: 3px solid #111; outline-offset: 2px; box-shadow: 0 0 0 5px #fff; }
  .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  @media (max-width: 480px) {
    .panel { inset: 0; width: auto; height: auto; border-radius: 0; }
    .page .panel { height: 100vh; }
    .launcher { right: 12px; bottom: 12px; }
    .launcher[aria-expanded="true"] { display: none; }  /* the panel covers the screen; its ✕ closes it */
  }
  @media (max-width: 360px) {  /* the smallest phones: room for the whole placeholder */
    form { padding: 8px; gap: 6px; }
    input { padding: 10px; }
    form button { padding: 10px 12px; }
  }`;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    for (var k in attrs || {}) {
      if (k === "text") node.textContent = attrs[k];
      else if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) node.setAttribute(k, attrs[k]);
    }
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }

  var host = el("div", { "data-shopagent": "" });
  var root = host.attachShadow({ mode: "open" });
  var ids = "shopagent-" + Math.random().toString(36).slice(2, 8);
  var frame = el("div", { class: PAGE ? "page" : "floating", style: "--accent:" + ACCENT });
  var launcher = PAGE ? null : el("button", { class: "launcher", type: "button", "aria-expanded": "false",
    "aria-controls": ids + "-panel", text: TITLE });
  var heading = el("h2", { id: ids + "-title", text: TITLE });
  var fresh = el("button", { type: "button", text: "New chat", title: "Start a new conversation" });
  var close = PAGE ? null : el("button", { type: "button", "aria-label": "Close chat", text: "✕" });
  var log = el("div", { class: "log", role: "log", "aria-live": "polite", "aria-label": "Conversation", tabindex: "0" });
  var status = el("p", { class: "status", role: "status" });
  var input = el("input", { id: ids + "-input", type: "text", maxlength: "2000", autocomplete: "off",
    placeholder: "What are you looking for?" });  // short enough for a phone's narrowest box
  var send = el("button", { type: "submit", text: "Send" });
  var form = el("form", { "aria-label": "Send a message" }, [
    el("label", { class: "sr-only", for: ids + "-input", text: "Your message" }), input, send,
  ]);
  var panel = el(PAGE ? "main" : "section", { class: "panel", id: ids + "-panel", "aria-labelledby": ids + "-title",
    role: PAGE ? null : "dialog", hidden: PAGE ? null : "" }, [
    el("header", {}, [heading, fresh, close]), log, status, form,
  ]);
  root.appendChild(el("style", { text: CSS }));
  frame.appendChild(panel);
  if (launcher) frame.appendChild(launcher);
  root.appendChild(frame);

  function showHint() {
    log.replaceChildren(el("p", { class: "hint", text: "Hello! Tell me what you are looking for — " +
      "for example “warm winter boots under 200 euros”." }));
  }

  function bubble(role, text) {
    var hint = log.querySelector(".hint");
    if (hint) hint.remove();
    var node = el("div", { class: "msg " + role, text: text });
    if (role === "error") node.setAttribute("role", "alert");
    log.appendChild(node);
    log.scrollTop = log.scrollHeight;
    return node;
  }

  function cardList(cards) {
    if (!cards.length) return null;
    var pattern = data.productUrl;
    return el("ul", { class: "cards", "aria-label": "Products" }, cards.map(function (c) {
      var href = pattern ? pattern.replace("{slug}", encodeURIComponent(c.slug || "")).replace("{id}", encodeURIComponent(c.id)) : c.url;
      var discounted = c.discountPrice != null && Number(c.discountPrice) < Number(c.price);
      var price = discounted
        ? el("p", { class: "price" }, [
            el("span", { class: "sr-only", text: "Was " }), el("s", { text: money(c.priceText, c.price, c.currency) }),
            el("span", { class: "sr-only", text: ", now " }),
            el("span", { class: "now", text: money(c.discountPriceText, c.discountPrice, c.currency) }),
          ])
        : el("p", { class: "price", text: money(c.priceText, c.price, c.currency) });
      if (c.priceFrom) price.prepend(el("span", { class: "from", text: "from " }));
      var where = c.asked.length ? " in " + c.asked.join(", ") : "";
      var links = [];
      var away = PAGE ? { target: "_blank", rel: "noopener" } : {};
      if (href) links.push(el("a", Object.assign({ class: "view", href: href, text: "View", "aria-label": "View " + c.name }, away)));
      if (c.cartUrl && c.inStock) {
        links.push(el("a", Object.assign({ class: "basket", href: c.cartUrl, text: "Add to basket", "aria-label": "Add " + c.name + " to the basket" }, away)));
      }
      return el("li", { class: "card" }, [
        picture(c),
        el("div", { class: "body" }, [
          el(href ? "a" : "span", { class: "name", href: href, text: c.name }),
          price,
          el("p", { class: "stock" + (c.inStock ? "" : " out"), text: (c.inStock ? "In stock" : "Out of stock") + where }),
        ].concat(links.length ? [el("p", { class: "links" }, links)] : [])),
      ]);
    }));
  }

  // The answer as shown above its cards: without the numbered lines that only repeat a card (its
  // name, price and sizes), which the answer keeps for clients that draw no cards.
  function around(text, cards) {
    var names = cards.map(function (c) { return String(c.name || "").toLowerCase(); }).filter(Boolean);
    var kept = text.split("\n").filter(function (line) {
      var listed = /^\s*\d+\.\s/.test(line);
      return !(listed && names.some(function (n) { return line.toLowerCase().indexOf(n) >= 0; }));
    });
    return kept.join("\n").trim() || text;
  }

  // A picture that cannot be loaded gives way to a plain tile, so the cards stay alike.
  function picture(c) {
    if (!c.mainImage) return el("div", { class: "noimg", "aria-hidden": "true" });
    var img = el("img", { src: c.mainImage, alt: c.name, loading: "lazy" });
    img.addEventListener("error", function () { img.replaceWith(el("div", { class: "noimg", "aria-hidden": "true" })); });
    return img;
  }

  // "Source: Shipping and delivery" under an answer drawn from a store page (a link when it has a url).
  function sourceLine(sources) {
    if (!sources || !sources.length) return null;
    var links = [];
    sources.forEach(function (s, i) {
      if (i) links.push(document.createTextNode(", "));
      links.push(s.url && /^https?:\/\//.test(s.url)
        ? el("a", { href: s.url, target: "_blank", rel: "noopener", text: s.title })
        : el("span", { text: s.title }));
    });
    return el("p", { class: "sources" }, [el("span", { text: "Source: " })].concat(links));
  }

  function answer(node, text, cards, sources, question) {
    node.textContent = cards && cards.length ? around(text, cards) : text;
    node.classList.remove("pending");
    node.removeAttribute("aria-busy");
    var list = cardList(cards || []);
    if (list) node.after(list);
    var cited = sourceLine(sources);
    if (cited) node.appendChild(cited);
    // The shopper's question at the top, the answer under it; the cards below can be scrolled to. A question
    // too long for that leaves the answer's first line at the top instead.
    var top = question && node.offsetTop - question.offsetTop < log.clientHeight / 2 ? question : node;
    log.scrollTop = Math.max(0, top.offsetTop - 12);
  }

  function showTurns(turns) {
    if (!turns.length) return showHint();
    log.replaceChildren();
    var question = null;
    turns.forEach(function (t) {
      var node = bubble(t.role, "");
      answer(node, t.text, t.cards, t.sources, t.role === "assistant" ? question : null);
      question = t.role === "user" ? node : null;
    });
  }

  // Failures a second try cannot mend: the token, or the page, has to change first.
  var FINAL = { token_expired: true, unauthorized: true, anonymous_chat_disabled: true, signed_out: true, token_url: true };

  // `retry` (if given) sends the failed message again from a button in the error, so the text box stays the
  // shopper's own: what they type next is a new message, never glued to the one that failed.
  function showError(error, retry) {
    var node = bubble("error", error instanceof ChatError ? error.words : "Sorry, something went wrong: " + error + ".");
    if (!(error instanceof ChatError)) console.warn(error);  // a bug of ours: worth a look in the console
    if (retry && !(error instanceof ChatError && FINAL[error.code])) {
      var again = el("button", { type: "button", class: "again", text: "Send again" });
      again.addEventListener("click", function () { retry(node); });
      node.appendChild(el("span", { class: "actions" }, [again]));
      log.scrollTop = log.scrollHeight;  // the button in view too
    }
    return node;
  }

  // -- behaviour -----------------------------------------------------------------------------

  var restored = false, busy = false;

  async function restore() {
    if (restored) return;
    restored = true;
    showHint();
    try {
      await token();  // an anonymous visitor gets their token now, so the first answer is not slower
      var conversation = async function () {
        var id = load().conversationId;  // read again after a renewal: a new visitor has none
        if (!id) return null;
        var response = await fetch(API + "/api/conversations/" + encodeURIComponent(id), { headers: await authorized() })
          .catch(function () { throw unreachable(); });
        if (response.status === 404) return save({ conversationId: null });  // deleted, or another user's
        if (!response.ok) throw await failure(response);
        return await response.json();
      };
      var detail = await conversation().catch(function (error) { return renewed(error, conversation); });
      if (detail) showTurns(turnsOf(detail.messages));
    } catch (error) {
      showError(error);
    }
  }

  async function ask(query) {
    var reply = null, shownCards = [], shownSources = [], streamed = false, usedTools = false;
    var question = bubble("user", query);
    status.textContent = "The assistant is thinking…";
    try {
      var post = async function () {
        var headers = await authorized({ "Content-Type": "application/json", Accept: "text/event-stream" });
        var conversationId = load().conversationId;  // after the token: a new visitor starts a new conversation
        return await call("/api/assistant-agent/chat", { method: "POST", headers: headers,
          body: JSON.stringify(conversationId ? { query: query, conversationId: conversationId } : { query: query }) });
      };
      var response = await post().catch(function (error) { return renewed(error, post); });
      reply = bubble("assistant", "");
      reply.classList.add("pending");
      reply.setAttribute("aria-busy", "true");  // screen readers read the answer once, when it is complete
      var failed = null, finalText = null, doneId = null;
      await readEvents(response, function (kind, event) {
        if (kind === "step" && event.calls && event.calls.length) status.textContent = "Looking through the catalog…";
        else if (kind === "tool") {
          usedTools = true;
          if (Array.isArray(event.products)) {
            streamed = true;
            var asked = askedOf(event.arguments);
            shownCards = unique(shownCards.concat(event.products.map(function (p) { return card(p, asked); })));
          }
          if (Array.isArray(event.sources)) shownSources = uniqueSources(shownSources.concat(event.sources));
        } else if (kind === "delta") { reply.textContent += event.text; log.scrollTop = log.scrollHeight; }
        else if (kind === "answer") {
          finalText = event.text;
          // The products the answer presents, in its order; a card only for those.
          shownCards = Array.isArray(event.products) ? withAsked(event.products, shownCards) : presented(finalText, shownCards);
        }
        else if (kind === "done") doneId = event.conversationId;
        else if (kind === "error") failed = describe(event.status, event.code, event.message);
      });
      if (failed) throw failed;
      if (finalText === null || !doneId) throw new ChatError("The answer was cut off — please try again.", "cut_off");
      save({ conversationId: doneId });
      if (usedTools && !streamed) shownCards = await cardsOfLastTurn(doneId);
      answer(reply, finalText, shownCards, shownSources, question);
    } catch (error) {
      if (reply) reply.remove();
      if (error instanceof ChatError && (error.code === "not_found" || error.code === "context_limit_reached")) {
        save({ conversationId: null });
      }
      showError(error, function (shown) {
        if (busy) return;
        question.remove();
        shown.remove();
        submit(query);
      });
    } finally {
      status.textContent = "";
    }
  }

  // Servers whose stream has no product cards yet: the cards come from the stored turn.
  async function cardsOfLastTurn(conversationId) {
    try {
      var detail = await (await call("/api/conversations/" + encodeURIComponent(conversationId), { headers: await authorized() })).json();
      var turns = turnsOf(detail.messages);
      var last = turns[turns.length - 1];
      return (last && last.role === "assistant" && last.cards) || [];
    } catch (error) {
      return [];  // the answer itself arrived; the cards are a nicety
    }
  }

  async function submit(query) {
    busy = true;
    send.disabled = true;
    try { await ask(query); } finally { busy = false; send.disabled = false; input.focus(); }
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var query = input.value.trim();
    if (!query || busy) return;
    input.value = "";
    submit(query);
  });

  fresh.addEventListener("click", function () {
    save({ conversationId: null });
    showHint();
    input.focus();
  });

  function setOpen(open) {
    if (PAGE) return;
    panel.hidden = !open;
    launcher.setAttribute("aria-expanded", String(open));
    save({ open: open || null });
    if (open) { restore(); input.focus(); } else launcher.focus();
  }

  if (!PAGE) {
    launcher.addEventListener("click", function () { setOpen(panel.hidden); });
    close.addEventListener("click", function () { setOpen(false); });
    panel.addEventListener("keydown", function (event) { if (event.key === "Escape") setOpen(false); });
  }

  function start() {
    document.body.appendChild(host);
    if (PAGE) { restore(); input.focus(); }
    else if (load().open) setOpen(true);
  }
  if (document.body) start(); else document.addEventListener("DOMContentLoaded", start);
})();
