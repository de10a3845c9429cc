"use strict";
(() => {
  let csrfToken = document.querySelector('meta[name="csrf-token"]').content;
  // The library this page was made for: the server refuses changes meant for another one.
  const libraryKey = document.querySelector('meta[name="library-key"]').content;
  const $ = (id) => document.getElementById(id);
  const PAGE_SIZE = 50;
  const SYNC_EVERY_MS = 5 * 60 * 1000;
  const state = {
    query: "", tag: "", sort: "", offset: 0, lastId: "", hasMore: false, total: null,
    generation: 0, loadingGeneration: -1, editing: null, syncing: false, lastSync: 0, hasRemote: true,
    googleClient: null, googleSignInAvailable: true, googleSignedIn: false,
    iCloudApiToken: false, iCloudSignInAvailable: true, iCloudSignedIn: false, unreadFrom: [],
  };

  // ---- Talking to the server -------------------------------------------------

  async function api(method, path, body, retried) {
    const options = { method, headers: {}, credentials: "same-origin" };
    if (method !== "GET") {
      options.headers["X-CSRF-Token"] = csrfToken;
      options.headers["X-MiDiccio-Library"] = libraryKey;
    }
    if (body instanceof Blob) {
      options.body = body;
      options.headers["Content-Type"] = "application/octet-stream";
    } else if (body !== undefined) {
      options.body = JSON.stringify(body);
      options.headers["Content-Type"] = "application/json";
    }
    let response;
    try {
      response = await fetch(path, options);
    } catch (error) {
      // A file the browser would not send (saved again, moved or removed since it was
      // chosen) fails the same way as a server that is gone: the server is asked, and the
      // person was told to check 'midiccio serve' while it ran on (round 27B #4).
      if (body instanceof File && await serverAnswers()) {
        throw new Error("The file could not be read to send it: it was changed, moved or removed since you chose it. "
          + "Nothing was changed. Choose it again.");
      }
      const failure = new Error("MiDiccio is not answering. Is 'midiccio serve' still running?");
      failure.unreachable = true;
      throw failure;
    }
    let data = null;
    try { data = await response.json(); } catch (error) { data = null; }
    // `serve` was started again since this page opened, with a new page token: the request
    // was refused before it did anything, so it is sent again, once, with the new token
    // (a word typed meanwhile is saved, not lost to a reload).
    if (response.status === 403 && data && data.field === "csrf" && !retried && await refreshToken()) {
      return api(method, path, body, true);
    }
    if (!response.ok) throw apiFailure(response.status, data);
    return data;
  }

  // True when the server answers a plain read.
  async function serverAnswers() {
    try { return (await fetch("/api/status", { credentials: "same-origin" })).ok; } catch (error) { return false; }
  }

  // The page token of the server now answering, read from a fresh copy of the page; false
  // when there is none, or it is the one this page already sends.
  async function refreshToken() {
    try {
      const response = await fetch("/", { credentials: "same-origin" });
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const meta = page.querySelector('meta[name="csrf-token"]');
      if (!meta || !meta.content || meta.content === csrfToken) return false;
      csrfToken = meta.content;
      return true;
    } catch (error) {
      return false;
    }
  }

  // The error a refused request throws: the server's message, the field at fault, the status.
  function apiFailure(status, data) {
    const failure = new Error((data && data.error) || "Something went wrong (" + status + ")");
    failure.field = data && data.field;
    failure.status = status;
    return failure;
  }

  function query(params) {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) {
      if (value !== "" && value !== null && value !== undefined) search.set(key, String(value));
    }
    return search.toString();
  }

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
  function formatTime(iso) { return iso ? dateFormat.format(new Date(iso)) : "never"; }
  // User text inside the app's own sentences is isolated for direction (FSI ... PDI, the
  // text form of <bdi>): an unclosed right-to-left override in a term ends at the PDI.
  function quoted(text) { return "\u201c\u2068" + text + "\u2069\u201d"; }
  function plural(count, one, many) { return count.toLocaleString() + " " + (count === 1 ? one : many); }

  // ---- Toasts and quiet notices -------------------------------------------------

  let toastTimer = null;
  function toast(message, actionLabel, action) {
    const box = $("toast"), button = $("toast-action");
    $("toast-text").textContent = message;
    button.hidden = !action;
    button.textContent = actionLabel || "";
    button.onclick = action ? async () => { hideToast(); await action(); } : null;
    box.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(hideToast, action ? 10000 : 4000);
  }
  function hideToast() { $("toast").hidden = true; }

  // " Press U to undo." where there is a keyboard to press it on: a phone's touch screen is
  // told only of the notice's Undo button (round 26B #6).
  function undoKeyHint() {
    return window.matchMedia("(hover: none) and (pointer: coarse)").matches ? "" : " Press U to undo.";
  }

  // ---- The word list ----------------------------------------------------------

  // A span of user text whose direction is its own (dir="auto"), so a right-to-left term
  // or an override inside it never turns the app's text around.
  function userText(tag, className, text) {
    const node = element(tag, className, text);
    node.dir = "auto";
    return node;
  }

  function wordItem(word) {
    const item = element("li", "word");
    item.dataset.id = word.id;
    const open = element("button", "word-open");
    open.type = "button";
    open.setAttribute("aria-label", "Open " + word.term);
    const head = element("span", "word-head");
    head.append(userText("bdi", "term", word.term));
    if (word.reading) head.append(userText("bdi", "reading", word.reading));
    open.append(head);
    if (word.meaning) open.append(userText("span", "meaning", word.meaning));
    if (word.examples.length) open.append(userText("span", "example", word.examples[0]));
    open.addEventListener("click", () => openViewer(word));
    item.word = word;
    const remove = element("button", "delete", "Delete");
    remove.type = "button";
    remove.setAttribute("aria-label", "Move " + word.term + " to the Trash");
    remove.addEventListener("click", () => deleteWord(word));
    const body = element("div", "word-body");
    body.append(open, tagButtons(word.tags));
    item.append(pickBox(word), body, element("span", "updated", shortTime(word.updatedAt)), remove);
    return item;
  }

  async function reload() {
    keepSelectionFor(state.query + "\u0000" + state.tag);
    state.generation += 1;
    state.offset = 0;
    state.lastId = "";
    state.hasMore = false;
    state.total = null;
    await loadMore(true);
  }

  // The search, tag and order live in the page's address, so reload, back and a
  // bookmark keep them. Typing replaces the entry; choosing a tag or an order adds one.
  function writeAddress(push) {
    const search = query({ q: state.query, tag: state.tag, sort: state.sort });
    const address = location.pathname + (search ? "?" + search : "") + location.hash;
    if (address === location.pathname + location.search + location.hash) return;
    if (push) history.pushState(null, "", address); else history.replaceState(null, "", address);
  }

  function readAddress() {
    const params = new URLSearchParams(location.search);
    state.query = (params.get("q") || "").trim();
    state.tag = params.get("tag") || "";
    const sort = params.get("sort") || "";
    state.sort = ["relevance", "updated", "created", "term"].includes(sort) ? sort : "";
    $("search").value = state.query;
    showSort();
    if (state.tag && !Array.from($("tag-filter").options).some((option) => option.value === state.tag)) {
      const option = element("option", "", state.tag);
      option.value = state.tag;
      $("tag-filter").append(option);
    }
    $("tag-filter").value = state.tag;
  }

  // Unless one was chosen, a search is ranked by best match and the list by last change.
  function showSort() {
    $("sort").value = state.sort || (state.query ? "relevance" : "updated");
  }

  async function loadMore(replace) {
    const generation = state.generation;
    if (state.loadingGeneration === generation && !replace) return;
    state.loadingGeneration = generation;
    try {
      let data;
      // The server filters, orders, counts and pages: every match can be reached.
      if (state.query) {
        // The page comes first; counting every match of a common query in a large
        // library takes longer, so the count follows in its own request.
        data = await api("GET", "/api/search?" + query({
          q: state.query, tag: state.tag, sort: state.sort, offset: state.offset, limit: PAGE_SIZE, count: 0,
        }));
        if (state.offset === 0) countMatches(generation);
      } else {
        // The list pages by key: the next page starts after the last word shown.
        const sort = state.sort === "relevance" ? "" : state.sort;
        data = await api("GET", "/api/words?" + query({ after: state.lastId, limit: PAGE_SIZE, sort, tag: state.tag }));
      }
      if (generation !== state.generation) return;
      const fragment = document.createDocumentFragment();
      for (const word of data.words) fragment.append(wordItem(word));
      if (replace) $("words").replaceChildren(fragment); else $("words").append(fragment);
      state.offset += data.words.length;
      // The place the last word had as shown, so a change made to it elsewhere meanwhile
      // neither ends the list nor repeats it (round 15B).
      if (data.words.length) state.lastId = data.next || data.words[data.words.length - 1].id;
      state.hasMore = data.hasMore;
      if (typeof data.total === "number") { state.total = data.total; state.mark = data.mark; }
      showCount(data.words.length);
    } catch (error) {
      toast(error.message);
    } finally {
      if (state.loadingGeneration === generation) state.loadingGeneration = -1;
    }
    if (generation === state.generation && state.hasMore && nearBottom()) loadMore(false);
  }

  // Shows how many words match the search of `generation`, unless another has begun.
  async function countMatches(generation) {
    try {
      const data = await api("GET", "/api/search/count?" + query({ q: state.query, tag: state.tag }));
      if (generation !== state.generation) return;
      state.total = data.total;
      state.mark = data.mark;
      showCount();
    } catch (error) {
      if (generation === state.generation) toast(error.message);
    }
  }

  function nearBottom() {
    return $("more").getBoundingClientRect().top < window.innerHeight + 600;
  }

  function showCount() {
    const shown = $("words").children.length;
    let text = "";
    if (state.query) text = shown === 0 || state.total === null ? "" : plural(state.total, "match", "matches");
    else if (state.total !== null) text = plural(state.total, "word", "words");
    $("count").textContent = text;
    showSelection();
    const empty = shown === 0;
    $("empty").hidden = !empty;
    if (empty) {
      const filtered = state.query || state.tag;
      $("empty-title").textContent = filtered ? "Nothing found" : "Your word list is empty";
      $("empty-text").textContent = state.query
        ? "No word matches " + quoted(state.query) + ". Add it as a new word?"
        : (state.tag ? "No word has this tag." : "Add the first word you want to remember.");
    }
  }

  // One tag whatever its case, and whether é is one character or e and an accent, as the
  // server keys tags (TagSet.key). Each character is lowered on its own, as Swift does:
  // the whole string's toLowerCase turns a final Σ into ς, and ΟΔΟΣ met οδος's entry.
  function tagKey(tag) { return Array.from(tag, (character) => character.toLowerCase()).join("").normalize("NFC"); }

  async function loadTags() {
    try {
      const data = await api("GET", "/api/tags");
      const select = $("tag-filter");
      const current = state.tag;
      const options = [element("option", "", "All words")];
      options[0].value = "";
      for (const entry of data.tags) {
        const option = element("option", "", entry.tag + " (" + entry.count + ")");
        option.value = entry.tag;
        options.push(option);
      }
      // A tag from the address keeps its place even when no word carries it any more.
      const known = data.tags.find((entry) => tagKey(entry.tag) === tagKey(current));
      if (current && !known) {
        const option = element("option", "", current + " (0)");
        option.value = current;
        options.push(option);
      }
      select.replaceChildren(...options);
      select.value = known ? known.tag : current;
    } catch (error) { /* the list still works without the tag menu */ }
  }

  // ---- Viewing a word -----------------------------------------------------------

  // The list cuts long fields to a few lines; the view shows every field whole.
  function openViewer(word) {
    state.viewing = word;
    $("v-term").textContent = word.term;
    $("v-reading").textContent = word.reading;
    $("v-meaning").textContent = word.meaning;
    $("v-meaning-row").hidden = !word.meaning;
    const examples = $("v-examples");
    examples.replaceChildren(...word.examples.map((example) => userText("li", "", example)));
    $("v-examples-row").hidden = !word.examples.length;
    $("v-notes").textContent = word.notes;
    $("v-notes-row").hidden = !word.notes;
    $("v-tags").replaceChildren(...word.tags.map((tag) => userText("bdi", "tag", tag)));
    $("v-tags-row").hidden = !word.tags.length;
    $("viewer").showModal();
    // The view opens at the top; its buttons stay in sight at the bottom (sticky).
    $("viewer-edit").focus({ preventScroll: true });
    $("viewer").scrollTop = 0;
  }

  function editViewed() {
    const word = state.viewing;
    $("viewer").close();
    if (word) openEditor(word);
  }

  // Back to the word in the list (the dialog would give focus to a button now hidden).
  function focusWord(word) {
    const item = word && $("words").querySelector('[data-id="' + word.id + '"]');
    if (item) item.querySelector(".word-open").focus();
  }

  // ---- Adding and editing -------------------------------------------------------

  const fields = ["term", "reading", "meaning", "examples", "notes", "tags"];

  function openEditor(word) {
    editorSession += 1;
    $("editor-save").disabled = false;
    state.editing = word || null;
    $("editor-title").textContent = word ? "Edit word" : "Add a word";
    $("f-term").value = word ? word.term : (state.query || "");
    $("f-reading").value = word ? word.reading : "";
    $("f-meaning").value = word ? word.meaning : "";
    $("f-examples").value = word ? word.examples.join("\n") : "";
    $("f-notes").value = word ? word.notes : "";
    $("f-tags").value = word ? word.tags.join(" ") : (state.tag || "");
    $("editor-delete").hidden = !word;
    clearErrors();
    $("w-term").textContent = "";
    $("editor").showModal();
    editorSnapshot = editorValues();
    editorOpened = Object.fromEntries(fields.map((name) => [name, $("f-" + name).value]));
    editorBase = word ? formBody() : null;
    $("f-term").focus();
    if (!word && $("f-term").value) checkDuplicates();
  }

  // What the form held when it opened: leaving with other values asks first.
  let editorSnapshot = "";
  // Counts the editor's openings: a save's answer closes the editor only if it still
  // shows what was saved (a slow save answering after the person left it and opened
  // another word closed that one, typing and all: round 13B).
  let editorSession = 0;
  // The opening whose save is on its way: another Ctrl+Enter meanwhile saves nothing
  // (pressed twice, it added the word twice: round 13B).
  let savingSession = -1;
  // The word's fields as the form showed them when it opened (null for a new word).
  let editorBase = null;
  function editorValues() { return JSON.stringify(fields.map((name) => $("f-" + name).value)); }
  function editorChanged() { return $("editor").open && editorValues() !== editorSnapshot; }

  // Esc, Cancel: closes the editor, after asking when something typed would be lost.
  function leaveEditor() {
    if (editorChanged() && !window.confirm("Discard your changes to this word?")) return;
    const word = state.editing;
    closeEditor();
    focusWord(word);
  }

  // True from a close the page makes (Cancel answered, a save, a delete) to its close
  // event, which comes later: any other close with changes typed is undone (below).
  let editorClosing = false;
  function closeEditor() {
    if (!$("editor").open) return;
    editorClosing = true;
    $("editor").close();
  }

  function clearErrors() {
    $("editor-restore-save").hidden = true;
    for (const name of fields.concat(["form"])) {
      $("e-" + name).textContent = "";
      const input = $("f-" + name);
      if (input) input.removeAttribute("aria-invalid");
    }
  }

  function showFieldError(field, message) {
    const name = fields.includes(field) ? field : "form";
    $("e-" + name).textContent = message;
    const input = $("f-" + name);
    if (input) { input.setAttribute("aria-invalid", "true"); input.focus(); }
  }

  // What each box held when the editor opened.
  let editorOpened = null;

  // The tags typed in the box: separated by spaces, or by commas ("a, b" and "a,b" are two
  // tags), except a tag the word already holds, which stays whole ("a,b" from an import).
  // Split at what the server counts as whitespace (Unicode's White_Space): JavaScript's \s
  // also takes U+FEFF, which a tag may hold, and a held tag split in two was taken off and
  // its halves put on (found by the exploratory helper, round 19B).
  const tagSpaces = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;
  function parseTags(text, held) {
    const known = new Set(held.map((tag) => tag.toLowerCase()));
    return text.split(tagSpaces).flatMap((token) => (known.has(token.toLowerCase()) ? [token] : token.split(","))).filter((tag) => tag !== "");
  }

  // The word as the form holds it, as the server takes it. A box left as it opened gives
  // the word's own value: a one-line box drops a term's line break, and the box of tags
  // split a tag holding a comma, so a save of the meaning alone said the term and tags were
  // "changed elsewhere meanwhile" and a tag with a comma could not be taken off (found by the
  // exploratory helper, round 8).
  function formBody() {
    const word = state.editing;
    const value = (name, typed) => (word && editorOpened && $("f-" + name).value === editorOpened[name] ? word[name] : typed);
    return {
      term: value("term", $("f-term").value),
      reading: value("reading", $("f-reading").value),
      meaning: value("meaning", $("f-meaning").value),
      examples: value("examples", $("f-examples").value.split("\n")),
      notes: value("notes", $("f-notes").value),
      tags: value("tags", parseTags($("f-tags").value, word ? word.tags : [])),
    };
  }

  async function saveWord() {
    const session = editorSession;
    if (savingSession === session) return;
    clearErrors();
    const body = formBody();
    if (!body.term.trim()) { showFieldError("term", "Type the word first."); return; }
    const editing = state.editing;
    // What the form showed when it opened: the server sets only the fields changed here,
    // and keeps what a sync or another program changed meanwhile in the others.
    if (editing && editorBase) body.base = editorBase;
    $("editor-save").disabled = true;
    savingSession = session;
    const stillOpen = () => session === editorSession && $("editor").open;
    try {
      const data = editing
        ? await api("PUT", "/api/words/" + editing.id, body)
        : await api("POST", "/api/words", body);
      if (stillOpen()) closeEditor();
      const also = data.duplicates.length ? " (it was already in your library too)" : "";
      const names = data.keptFromElsewhere || [];
      const kept = names.length
        ? "; kept the " + (names.length > 1 ? names.slice(0, -1).join(", ") + " and " : "") + names[names.length - 1]
          + " changed elsewhere meanwhile" : "";
      // A field changed both here and elsewhere takes this save: say what it replaced.
      const replaced = (data.replacedFromElsewhere || []).map((entry) => entry.field + " " + quoted(entry.was.length > 80 ? entry.was.slice(0, 80) + "\u2026" : entry.was)).join(", ");
      toast((editing ? "Saved " : "Added ") + quoted(data.word.term) + also + kept
        + (replaced ? "; it replaced what was changed elsewhere meanwhile: " + replaced : ""));
      if (editing) {
        const item = $("words").querySelector('[data-id="' + editing.id + '"]');
        if (item && state.sort !== "updated") item.replaceWith(wordItem(data.word)); else await reload();
        if (!$("editor").open) focusWord(data.word);
      } else {
        await reload();
      }
      ownChangeMade();
      loadTags();
      scheduleSync();
    } catch (error) {
      // Left meanwhile: the message goes where the person is, not into another word's form.
      if (stillOpen()) {
        showFieldError(error.field, error.message);
        // Moved to the Trash elsewhere meanwhile: one button restores it and saves.
        if (error.field === "trash") { $("editor-restore-save").hidden = false; $("editor-restore-save").focus(); }
      } else toast("Not saved: " + quoted(body.term) + ": " + error.message);
    } finally {
      if (savingSession === session) savingSession = -1;
      if (session === editorSession) $("editor-save").disabled = false;
    }
  }

  // A word moved to the Trash elsewhere while it was open here: "restore it first" could
  // not be done without leaving the editor, and the typing with it (round 13B). This takes
  // it out of the Trash, then saves what was typed.
  async function restoreAndSave() {
    const word = state.editing;
    if (!word) return;
    const button = $("editor-restore-save");
    button.disabled = true;
    try {
      try {
        await api("POST", "/api/words/" + word.id + "/restore");
      } catch (error) {
        // Restored elsewhere meanwhile (409) is what was wanted; anything else is said.
        if (error.status !== 409) { showFieldError("form", error.message); return; }
      }
      await saveWord();
    } finally { button.disabled = false; }
  }

  let duplicateTimer = null;
  function checkDuplicates() {
    clearTimeout(duplicateTimer);
    duplicateTimer = setTimeout(async () => {
      const term = $("f-term").value.trim();
      if (!term) { $("w-term").textContent = ""; return; }
      try {
        const except = state.editing ? state.editing.id : "";
        const data = await api("GET", "/api/duplicates?" + query({ term, except }));
        if ($("f-term").value.trim() !== term) return;
        $("w-term").textContent = data.words.length
          ? "Already in your library: " + quoted(data.words[0].term) + (data.words[0].meaning ? " \u2014 " + data.words[0].meaning : "") + ". You can still save it."
          : "";
      } catch (error) { $("w-term").textContent = ""; }
    }, 250);
  }

  // ---- Deleting, the Trash --------------------------------------------------------

  // Words whose move to the Trash is on its way: `d` pressed again before the answer came
  // sent the same word again, whose "already in the Trash" replaced the Undo notice.
  const deleting = new Set();

  async function deleteWord(word) {
    if (deleting.has(word.id)) return;
    deleting.add(word.id);
    try {
      await api("DELETE", "/api/words/" + word.id);
      const item = $("words").querySelector('[data-id="' + word.id + '"]');
      // Focus goes to the next word (or the one before), never to the page's body.
      const neighbour = item && (item.nextElementSibling || item.previousElementSibling);
      const hadFocus = item && item.contains(document.activeElement);
      if (item) item.remove();
      // A search pages by offset: the matches after it moved up by one (the next page
      // skipped one: round 13B).
      if (item && state.query && state.offset > 0) state.offset -= 1;
      if (hadFocus || $("editor").open === false) {
        if (neighbour) neighbour.querySelector(".word-open").focus(); else $("words").focus();
      }
      if (state.total !== null) state.total -= 1;
      ownChangeMade();
      showCount();
      loadTags();
      scheduleSync();
      toast("Moved " + quoted(word.term) + " to the Trash." + undoKeyHint(), "Undo", async () => {
        try {
          // Synced first: a word another device deleted permanently meanwhile was said to be
          // restored until the next sync took it, with any edit made since (round 18B).
          await syncFirst(false);
          await api("POST", "/api/words/" + word.id + "/restore");
          if (state.total !== null) state.total += 1;
          ownChangeMade();
          await reload();
          loadTags();
          toast("Restored " + quoted(word.term));
        } catch (error) { toast(error.message); }
      });
    } catch (error) {
      toast(error.message);
      // Moved to the Trash or deleted for good elsewhere: the list shows it as it is now.
      if (error.status === 409 || error.status === 404) await reload();
    } finally {
      deleting.delete(word.id);
    }
  }

  // ---- The Trash page ----------------------------------------------------------------

  // The Trash is read a page at a time, by key (after the last entry shown): a
  // 100,000-word Trash shows its newest 50 at once. The selection is either the ticked
  // entries or every entry matching the search ("all": the server picks them).
  const trash = { lastId: "", generation: 0, total: 0, all: false, anchor: null, refreshing: null, addingMore: false };
  // See `noteTrashChanged`.
  const trashChanged = { ids: new Set(), terms: [] };

  function trashItem(word, version) {
    const item = element("li");
    item.dataset.id = word.id;
    // The entry as shown: a purge of it is refused once it changed (round 27B #1).
    item.dataset.version = version || "";
    const pick = element("input");
    pick.type = "checkbox";
    pick.className = "trash-pick";
    pick.checked = trash.all;
    pick.setAttribute("aria-label", "Select " + word.term);
    pick.addEventListener("click", (event) => {
      const boxes = [...document.querySelectorAll("#trash-list .trash-pick")];
      rangeClick(boxes, pick, event, trash);
      if (!pick.checked) trash.all = false;
      showTrashSelection();
    });
    const text = element("span", "trash-text");
    text.append(userText("bdi", "term", word.term));
    if (word.meaning) text.append(" ", userText("span", "muted trash-meaning", word.meaning));
    text.append(element("span", "muted", " \u00b7 deleted " + formatTime(word.deletedAt)));
    const restore = element("button", "", "Restore");
    restore.type = "button";
    restore.setAttribute("aria-label", "Restore " + word.term);
    restore.addEventListener("click", () => trashBulk(false, { ids: [word.id] }, quoted(word.term)));
    const purge = element("button", "danger quiet", "Delete permanently");
    purge.type = "button";
    purge.setAttribute("aria-label", "Delete " + word.term + " permanently");
    purge.addEventListener("click", () => trashBulk(true, { ids: [word.id], versions: [item.dataset.version] }, quoted(word.term)));
    item.append(pick, text, restore, purge);
    return item;
  }

  // "More" continues the list shown, after its last entry: it waits for a fresh list still
  // on its way (it would otherwise ask for the first page again, and add it twice), and a
  // page already being added is not asked for again.
  async function loadTrash(more) {
    if (more) {
      if (trash.refreshing) await trash.refreshing;
      if (trash.addingMore) return;
      trash.addingMore = true;
      try { await showTrashPage(true); } finally { trash.addingMore = false; }
      return;
    }
    const refreshing = showTrashPage(false);
    trash.refreshing = refreshing;
    try { await refreshing; } finally { if (trash.refreshing === refreshing) trash.refreshing = null; }
  }

  async function showTrashPage(more) {
    if (!more) { trash.lastId = ""; trash.generation += 1; trash.all = false; trash.anchor = null; $("trash-all").checked = false; }
    const generation = trash.generation;
    const term = $("trash-search").value.trim();
    try {
      const data = await api("GET", "/api/trash?" + query({ q: term, after: trash.lastId, limit: 50, hidden: trash.showHidden ? 1 : "" }));
      if (generation !== trash.generation) return;
      const list = $("trash-list");
      const fragment = document.createDocumentFragment();
      data.words.forEach((word, index) => fragment.append(trashItem(word, (data.versions || [])[index])));
      if (more) list.append(fragment); else list.replaceChildren(fragment);
      if (data.words.length) trash.lastId = data.next || data.words[data.words.length - 1].id;
      trash.total = data.total;
      trash.whole = data.whole;
      trash.wholeKey = data.wholeKey;
      trash.hidden = data.hidden;
      trash.mark = data.mark;
      $("trash-more").hidden = !data.hasMore;
      const searching = term !== "";
      // Entries trash.hideAfterDays hides are said, and shown on request: Empty Trash purges
      // them too, and a page that could not show them said "The Trash is empty." while its
      // Empty Trash asked about them (round 28A #2).
      $("trash-show-hidden").hidden = !data.hidden;
      $("trash-summary").textContent = data.total === 0
        ? (data.hidden
          ? (data.hidden === 1 ? "1 older entry is" : data.hidden.toLocaleString() + " older entries are") + " in the Trash, hidden (trash.hideAfterDays)."
          : (searching ? "No word in the Trash starts with that." : "The Trash is empty."))
        : plural(data.total, "word", "words") + (searching ? " match" : " in the Trash") + ", " + list.children.length + " shown."
          + (data.hidden ? (data.hidden === 1 ? " (1 older one is hidden.)" : " (" + data.hidden.toLocaleString() + " older ones are hidden.)") : "");
      $("empty-trash").hidden = data.total === 0 && !data.hidden && !searching;
      showTrashSelection();
    } catch (error) { $("trash-summary").textContent = error.message; }
  }

  function selectedTrash() {
    return Array.from(document.querySelectorAll("#trash-list .trash-pick:checked")).map((box) => box.closest("li").dataset.id);
  }

  // The chosen entries as shown, in the order of `selectedTrash`.
  function selectedTrashVersions() {
    return Array.from(document.querySelectorAll("#trash-list .trash-pick:checked")).map((box) => box.closest("li").dataset.version);
  }

  function showTrashSelection() {
    const count = trash.all ? trash.total : selectedTrash().length;
    $("trash-restore-selected").disabled = count === 0;
    $("trash-purge-selected").disabled = count === 0;
    $("trash-selection").textContent = count ? plural(count, "word", "words") + " selected" : "";
    $("trash-restore-selected").textContent = count ? "Restore " + plural(count, "word", "words") : "Restore selected";
    $("trash-purge-selected").textContent = count ? "Delete " + plural(count, "word", "words") + " permanently" : "Delete selected permanently";
    const shown = $("trash-list").children.length;
    const button = $("trash-select-matches");
    button.hidden = trash.all || count === 0 || trash.total <= shown;
    button.textContent = "Select all " + trash.total.toLocaleString() + ($("trash-search").value.trim() ? " matches" : " words in the Trash");
  }

  // The selection as the server reads it: the ticked ids, or every entry matching the search.
  function trashTarget() {
    // With the count shown, so the server refuses if entries came or went meanwhile.
    return trash.all
      ? { select: "trash", q: $("trash-search").value.trim(), expect: trash.total }
      : { ids: selectedTrash(), versions: selectedTrashVersions() };
  }

  async function trashBulk(purge, target, name) {
    target = target || trashTarget();
    // A restore takes the words as they are: only a purge is refused over a change.
    if (!purge && target.versions) target = { ids: target.ids };
    const count = target.ids ? target.ids.length : trash.total;
    if (count === 0) return;
    const what = name || plural(count, "word", "words");
    if (purge && !window.confirm("Delete " + what + " permanently, on every device? This cannot be undone.")) return;
    for (const id of ["trash-restore-selected", "trash-purge-selected"]) $(id).disabled = true;
    try {
      // A restore syncs first too, without asking: a word deleted permanently elsewhere is
      // not said to be restored (round 18B).
      await syncFirst(purge);
      if (purge) refuseTrashChanged(target.ids || null);
      const data = await bulkJob(purge ? "purge" : "restore", target);
      $("trash-all").checked = false;
      await loadTrash();
      reload(); loadTags(); scheduleSync();
      if (purge) { toast(plural(data.purged, "word", "words") + " deleted permanently"); return; }
      toast("Restored " + (name || plural(data.changed, "word", "words")) + "." + undoKeyHint(), "Undo",
        bulkUndo(data.step, async () => { await loadTrash(); reload(); }, "Moved {n} back to the Trash"));
    } catch (error) {
      toast(error.message);
      // Entries came or went elsewhere: show them as they are now, and count again.
      await loadTrash();
      showTrashSelection();
    }
  }

  // The toast's Undo of bulk action `step`: one request takes the whole action back;
  // `refresh` redraws what it changed, and `done` ("{n}" for the words) says so.
  function bulkUndo(step, refresh, done) {
    return async () => {
      try {
        await syncFirst();
        const undone = await bulkJob("undo", { step });
        await refresh();
        loadTags();
        scheduleSync();
        // Words changed again since the action (here or on another device) stay as they are.
        const kept = undone.keptSince
          ? "; " + plural(undone.keptSince, "word", "words") + " changed since, kept as " + (undone.keptSince === 1 ? "it is" : "they are")
          : "";
        // Words moved back to the Trash that had been studied: said, as a restore's undo says it.
        toast(done.replace("{n}", plural(undone.changed, "word", "words")) + kept + (undone.trashedStudied ? "." : "")
          + studiedAndTrashed(undone));
      } catch (error) { toast(error.message); }
    };
  }

  // Words in the Trash that a sync since the Trash was opened found with a change not seen
  // here (an edit, or study answers, another device made before the move reached it). A
  // purge asked about the Trash as it was refuses them once, as the command line does: the
  // Trash's key holds the words' content, not their answers, and Empty Trash purged a word
  // studied on the phone, answers and all, on every device (found by the exploratory
  // helper, round 28A #1).
  function noteTrashChanged(report) {
    for (const id of report.trashChanged || []) trashChanged.ids.add(id);
    for (const term of report.trashChangedTerms || []) if (!trashChanged.terms.includes(term)) trashChanged.terms.push(term);
  }

  // Refuses a purge of `ids` (null: the whole Trash) when a word among them changed as
  // `noteTrashChanged` says; forgets them, so the purge asked again goes on.
  function refuseTrashChanged(ids) {
    const found = ids ? ids.filter((id) => trashChanged.ids.has(id)).length : trashChanged.ids.size;
    if (!found) return;
    const terms = trashChanged.terms.slice(0, 5).map(quoted).join(", ");
    trashChanged.ids.clear();
    trashChanged.terms = [];
    throw new Error("The sync before it found " + plural(found, "word", "words") + " in the Trash with a change not seen here"
      + " before (an edit, or study answers, from another device)" + (terms ? ": " + terms : "") + "; nothing was deleted."
      + " Look at the Trash (restore a word to keep its change), then delete again.");
  }

  // Emptying a Trash of 100,000 words takes seconds: the page shows how far it has come.
  async function emptyTrash() {
    // The count the person is asked about, and which words, go with the request: words
    // another device moved to the Trash or out of it meanwhile (pulled by the sync first)
    // make it refuse, purging none, even when as many are there.
    const whole = trash.whole;
    const wholeKey = trash.wholeKey;
    const hidden = trash.hidden ? " (" + (trash.hidden === whole ? (whole === 1 ? "it is" : "all are") : trash.hidden.toLocaleString()
      + " of them are") + " hidden: older than trash.hideAfterDays)" : "";
    if (!window.confirm("Delete " + (whole === 1 ? "the 1 word" : "all " + whole.toLocaleString() + " words")
      + " in the Trash" + hidden + " permanently, on every device? This cannot be undone.")) return;
    const buttons = ["empty-trash", "trash-restore-selected", "trash-purge-selected"].map($);
    for (const button of buttons) button.disabled = true;
    try {
      await syncFirst();
      refuseTrashChanged(null);
      const key = newJobKey();
      const data = await runJob(key, "/api/trash/empty?" + query({ key }), { expect: whole, expectKey: wholeKey },
        $("trash-progress-box"), $("trash-progress"), $("trash-progress-text"));
      toast("Deleted " + plural(data.purged, "word", "words") + " permanently");
      scheduleSync();
    } catch (error) { toast(error.message); }
    $("empty-trash").disabled = false;
    await loadTrash();
    showTrashSelection();
  }

  function openTrash() {
    trash.showHidden = false;
    trashChanged.ids.clear();
    trashChanged.terms = [];
    $("trash-search").value = "";
    loadTrash();
    $("trash-page-title").focus();
  }

  // ---- Sync -------------------------------------------------------------------

  function setSyncState(text, problem, detail) {
    const node = $("sync-state");
    node.textContent = text;
    node.classList.toggle("problem", !!problem);
    node.title = detail || "";
  }

  // `allowMassDelete`: past the guard that stops a sync taking most of the library away,
  // once the person has read why it stopped and said so.
  // A sync already under way is waited for, not started twice.
  // `findUnnamed`: the sync before a decisive action, which also reads what other devices
  // uploaded and could not name in their records yet (round 20B #11).
  function syncNow(manual, allowMassDelete, findUnnamed) {
    if (state.syncing) return state.syncRun;
    state.syncing = true;
    state.syncRun = runSync(manual, allowMassDelete, findUnnamed);
    return state.syncRun;
  }

  // Before what other devices' changes decide (a restore, an undo, a permanent deletion):
  // a word another device edited, or took out of the Trash, and this page had not pulled
  // was overridden or purged everywhere (found by the exploratory helper).
  // When that sync fails (the cloud down, a password changed), the person is asked: going
  // on overrode another device's edit without a word (found by the exploratory helper,
  // round 7); the command line warns the same way. Saying no changes nothing. A preview
  // (`ask` false) changes nothing either way, and does not ask.
  async function syncFirst(ask = true) {
    if (!state.hasRemote) return;
    // A sync already under way did not look for files other devices' records do not name yet.
    if (ask && state.syncing) await state.syncRun;
    await syncNow(false, false, ask);
    // A page made for another library cannot go on at all: no question, the reason.
    if (state.syncFailed && state.syncErrorField === "library") throw new Error(state.syncError);
    // A sync that could not read every change another device's record names yet (a sync
    // program still delivering it) asks too: one may have taken a word out of the Trash
    // (found by the exploratory helper, round 12C).
    if (!state.syncFailed && ask && state.unreadFrom.length) {
      const waiting = "Not every change of " + state.unreadFrom.join(", ") + " has arrived here yet (a sync program may still be"
        + " delivering it). Going on now may undo or override what it holds. Go on anyway?";
      if (!window.confirm(waiting)) throw new Error("Nothing was changed. Try again once those changes have arrived.");
      return;
    }
    if (!state.syncFailed || !ask) return;
    const question = "MiDiccio could not sync first (" + state.syncError + "). Going on now may undo or override changes"
      + " your other devices made that this page has not received yet. Go on anyway?";
    if (!window.confirm(question)) throw new Error("Nothing was changed. Try again once MiDiccio can sync.");
  }

  // `action` after `syncFirst`, for a button that shows it is busy through both.
  function afterSync(action) {
    return async () => {
      await syncFirst();
      return action();
    };
  }

  async function runSync(manual, allowMassDelete, findUnnamed) {
    if (manual) $("sync-result").textContent = "Syncing\u2026";
    const button = $("sync-now");
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    try {
      const key = newJobKey();
      const report = await runJob(key, "/api/sync?" + query({ job: key, allowMassDelete: allowMassDelete ? 1 : "", findUnnamedFiles: findUnnamed ? 1 : "" }), undefined, $("sync-progress"), $("sync-progress"),
        manual ? $("sync-result") : null);
      state.lastSync = Date.now();
      if (!report.synced) {
        state.hasRemote = false;
        setSyncState("");
        // With no sync, the Trash's clean-up ran instead, and says what it deleted.
        const notes = (report.notes || []).join(" ");
        if (manual || notes) $("sync-result").textContent = [manual ? "Choose a sync folder first." : "", notes].filter(Boolean).join(" ");
        if (report.purged > 0) {
          if (!$("editor").open) reload();
          if (!$("trash-view").hidden) loadTrash(false);
          loadTags();
        }
        return;
      }
      state.hasRemote = true;
      state.unreadFrom = report.unreadFrom || [];
      noteTrashChanged(report);
      $("sync-anyway").hidden = true;
      setSyncState("Synced " + new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }));
      if (manual) {
        $("sync-result").textContent = "Synced: " + plural(report.pulled, "word", "words") + " received, " + report.pushed + " sent"
          + (report.answersAndSettings ? "; " + report.answersAndSettings : "") + ".";
      }
      else if (state.syncFailed) $("sync-result").textContent = "";
      // A clock ahead somewhere is said whoever started the sync: edits there win meanwhile.
      // So is a library that found it is a copy of another and took a new device id, and
      // what the sync found of the cloud (started again, emptied, set back to, ...).
      const notices = [report.newIdentity, report.clockAhead, report.purgeNote].concat(report.notes || []).filter(Boolean);
      if (notices.length) $("sync-result").textContent = [manual ? $("sync-result").textContent : ""].concat(notices).filter(Boolean).join(" ");
      // Edits made here to words another device purged went with them: say so wherever
      // the person is, not only in Settings.
      if (report.purgedEditedHere > 0 || report.purgedStudiedHere > 0) toast(report.purgeNote);
      state.syncFailed = false;
      // A purge pulled takes words off the list too (it stayed listed: round 13B).
      if (report.pulled > 0 || report.merged > 0 || report.purged > 0) {
        if (!$("editor").open) reload();
        loadTags();
      }
    } catch (error) {
      // A failed sync is not the user's problem to solve right now: say so quietly. A sync
      // that would take most of the library away waits for the person, not for a retry.
      const asks = error.field === "massDeletion";
      $("sync-anyway").hidden = !asks;
      setSyncState(asks ? "Not synced \u2014 see Settings" : "Not synced \u2014 will try again", true, error.message);
      // Settings says why, whoever started the sync: a hover title alone hid it.
      $("sync-result").textContent = manual ? error.message : "The last sync failed: " + error.message;
      state.syncFailed = true;
      state.syncError = error.message;
      state.syncErrorField = error.field;
    } finally {
      state.syncing = false;
      button.disabled = false;
      button.removeAttribute("aria-busy");
      if (!$("settings-view").hidden) loadStatus();
    }
  }

  $("sync-anyway").addEventListener("click", () => {
    if (!window.confirm($("sync-result").textContent.replace(/^The last sync failed: /, "") + "\n\nSync anyway?")) return;
    syncNow(true, true);
  });

  let syncTimer = null;
  function scheduleSync() {
    if (!state.hasRemote) return;
    clearTimeout(syncTimer);
    syncTimer = setTimeout(() => syncNow(false), 2000);
  }

  async function loadStatus() {
    try {
      const status = await api("GET", "/api/status");
      state.hasRemote = status.remote !== null;
      showUndo(status.canUndoRestore, status.canUndoImport, status.restoreUndoSource, status.importUndoSource,
        status.restoreUndoKey, status.importUndoKey);
      $("settings-trash-count").textContent = (status.trash ? plural(status.trash, "word", "words") + " in the Trash." : "The Trash is empty.")
        + (status.trashHeld ? " " + status.trashHeld : "");
      const details = $("sync-details");
      details.replaceChildren();
      const add = (label, value) => { details.append(element("dt", "", label), element("dd", "", value)); };
      add("This device", status.device);
      add("Words", status.words.toLocaleString() + (status.trash ? " (and " + status.trash.toLocaleString() + " in the Trash)" : ""));
      const devices = $("devices");
      devices.replaceChildren();
      state.googleClient = status.googleClient;
      state.googleSignInAvailable = status.googleSignInAvailable;
      state.googleSignedIn = !!status.googleSignedIn;
      state.iCloudApiToken = !!status.iCloudApiToken;
      state.iCloudSignInAvailable = status.iCloudSignInAvailable;
      state.iCloudSignedIn = !!status.iCloudSignedIn;
      // A form typed into and not saved, or being typed into, is left as it is: a status
      // reload after a sync wrote over a cleared folder field before its Save (found by a
      // browser test's race).
      const keepForm = state.remoteEdited || $("remote-form").contains(document.activeElement);
      if (!keepForm && !status.remoteICloud) {
        if (status.iCloudContainer && !$("icloud-container").value) $("icloud-container").value = status.iCloudContainer;
        if (status.iCloudEnvironment) $("icloud-environment").value = status.iCloudEnvironment;
      }
      showRemoteKind();
      if (status.remote === null) {
        $("sync-summary").textContent = "Your words are only on this device. To use them on other devices too, choose a folder that Dropbox, iCloud Drive, Google Drive, OneDrive, Nextcloud or Syncthing keeps in sync.";
        if (!keepForm) $("remote-folder").value = "";
        return;
      }
      $("sync-summary").textContent = "Syncing through " + status.remote + ".";
      if (!keepForm) {
        $("remote-kind").value = status.remoteGoogleDrive ? "gdrive" : status.remoteICloud ? "icloud" : status.remoteWebDAV ? "webdav" : "folder";
        $("remote-folder").value = status.remoteFolder || "";
        $("remote-url").value = status.remoteWebDAV || "";
        $("remote-user").value = status.remoteUser || "";
        if (status.remoteGoogleDrive) {
          $("gdrive-space").value = status.remoteGoogleDrive;
          if (status.remoteGoogleFolder) $("gdrive-folder").value = status.remoteGoogleFolder;
        }
        if (status.remoteICloud) {
          $("icloud-container").value = status.remoteICloud;
          $("icloud-environment").value = status.remoteICloudEnvironment;
          $("icloud-zone").value = status.remoteICloudZone;
        }
        showRemoteKind();
      }
      add("Last sync", formatTime(status.lastSync));
      add("Waiting to upload", [plural(status.pending, "word", "words"),
        status.pendingAnswers ? plural(status.pendingAnswers, "study answer", "study answers") : "",
        status.pendingSettings ? plural(status.pendingSettings, "setting", "settings") : "",
        status.pendingPurges ? plural(status.pendingPurges, "permanent deletion", "permanent deletions") : ""].filter(Boolean).join(", "));
      if (status.cloudProblem) add("Problem", status.cloudProblem);
      // A sync since the last one that finished failed, here or in another program.
      if (status.lastFailure) add("Last sync failed", formatTime(status.lastFailure.at) + ": " + status.lastFailure.message);
      for (const device of status.devices) {
        const item = element("li");
        item.append(element("strong", "", device.label + (device.isThisDevice ? " (this device)" : "")));
        item.append(element("span", "muted", "last sync " + formatTime(device.lastSync)));
        if (!device.isThisDevice) {
          item.append(device.agrees
            ? element("span", "agrees", "\u2713 same words")
            : element("span", "differs", device.copyNote || "different words until it syncs again"));
          if (device.clockAhead) item.append(element("span", "differs", device.clockAhead));
        }
        devices.append(item);
      }
    } catch (error) { $("sync-summary").textContent = error.message; }
  }

  function showRemoteKind() {
    const kind = $("remote-kind").value;
    $("remote-folder-fields").hidden = kind !== "folder";
    $("remote-webdav-fields").hidden = kind !== "webdav";
    $("remote-gdrive-fields").hidden = kind !== "gdrive";
    $("gdrive-folder-field").hidden = $("gdrive-space").value !== "folder";
    // A client built into midiccio, or named by its environment, needs no typing.
    $("gdrive-client-fields").hidden = !!state.googleClient;
    $("remote-icloud-fields").hidden = kind !== "icloud";
    // An API token built into midiccio, or named by its environment, needs no typing.
    $("icloud-token-field").hidden = state.iCloudApiToken;
    $("remote-save").textContent = kind === "gdrive" ? "Sign in with Google" : kind === "icloud" ? "Sign in with Apple" : "Save";
    $("remote-save").disabled = (kind === "gdrive" && state.googleSignInAvailable === false)
      || (kind === "icloud" && state.iCloudSignInAvailable === false);
    $("icloud-note").textContent = state.iCloudSignInAvailable === false
      ? "Signing in from this page needs 'midiccio serve' on the computer with the browser, without --token. On the computer that serves, run: midiccio remote set icloud --no-browser"
      : state.iCloudSignedIn
        ? "Signed in to iCloud. Sign in again to change the container, the zone or the Apple Account."
        : "Apple asks you to sign in with your Apple Account, then brings you back here. Accounts with Advanced Data Protection turned on cannot use iCloud from the web.";
    $("gdrive-note").textContent = state.googleSignInAvailable === false
      ? "Signing in from this page needs 'midiccio serve' on the computer with the browser, without --token. On the computer that serves, run: midiccio remote set gdrive --no-browser"
      : state.googleSignedIn
        ? "Signed in to Google Drive. Sign in again to change the folder or the Google account."
        : "Google asks you to sign in and allow MiDiccio to keep its files in your Drive, then brings you back here.";
  }

  // Google sends the browser to /oauth/callback, which sends it back here with
  // ?signin=ID; what happened is fetched by that id (never read from the address).
  async function showSignInOutcome() {
    const id = new URLSearchParams(location.search).get("signin");
    if (!id) return;
    history.replaceState(null, "", "/#settings");
    try {
      const outcome = await api("GET", "/api/signin?" + query({ id }));
      $(outcome.ok ? "remote-result" : "remote-error").textContent = outcome.message;
      // The page's first sync, already under way, goes through the new remote.
      if (outcome.ok) { state.hasRemote = true; loadStatus(); }
    } catch (error) { /* an old or unknown id: nothing to say */ }
  }

  async function signInWithGoogle() {
    const folder = $("gdrive-space").value === "folder" ? $("gdrive-folder").value : "";
    const body = { folder, clientId: $("gdrive-client-id").value, clientSecret: $("gdrive-client-secret").value };
    const start = await api("POST", "/api/remote/gdrive", body);
    $("gdrive-client-secret").value = "";
    location.assign(start.url);
  }

  async function signInWithApple() {
    const body = {
      container: $("icloud-container").value, environment: $("icloud-environment").value,
      zone: $("icloud-zone").value, apiToken: $("icloud-api-token").value,
    };
    const start = await api("POST", "/api/remote/icloud", body);
    $("icloud-api-token").value = "";
    location.assign(start.url);
  }

  async function saveRemote(event) {
    event.preventDefault();
    $("remote-error").textContent = "";
    $("remote-result").textContent = "";
    if ($("remote-kind").value === "gdrive") {
      try { await signInWithGoogle(); } catch (error) { $("remote-error").textContent = error.message; }
      return;
    }
    if ($("remote-kind").value === "icloud") {
      try { await signInWithApple(); } catch (error) { $("remote-error").textContent = error.message; }
      return;
    }
    const webdav = $("remote-kind").value === "webdav";
    const body = webdav
      ? { webdav: $("remote-url").value, user: $("remote-user").value, password: $("remote-password").value }
      : { folder: $("remote-folder").value };
    // An empty place turns syncing off: asked first, as a cleared field is easy to save.
    const leaving = (webdav ? body.webdav : body.folder).trim() === "";
    const stop = "Stop syncing this library? Its words stay on this device, and the cloud copy is left as it is.";
    if (leaving && state.hasRemote && !window.confirm(stop)) return;
    try {
      const saved = await api("PUT", "/api/remote", body);
      state.remoteEdited = false;
      $("remote-password").value = "";
      // The server moved any "user:password@" of the address into the user field and
      // the password store: show the address as kept, so no password stays on the page.
      if (webdav) {
        $("remote-url").value = saved.remoteWebDAV || "";
        $("remote-user").value = saved.remoteUser || "";
      }
      state.hasRemote = !leaving;
      if (leaving) $("remote-result").textContent = "Syncing is off. The words stay on this device; give a folder or a server to sync again.";
      await loadStatus();
      if (state.hasRemote) syncNow(true);
    } catch (error) { $("remote-error").textContent = error.message; }
  }

  // ---- Backup, import, export -------------------------------------------------------

  // Look-ups imported before whose words are in the Trash now (an import undone, then
  // made again): say where they are.
  function lookupsInTrash(report) {
    const count = report.alreadyImportedInTrash;
    if (!count) return "";
    return " (" + (count === report.alreadyImported ? "all" : count.toLocaleString()) + " of them in the Trash: restore them from there)";
  }

  // A conflict copy (`fromCopy`) is only ever merged: no Replace to offer.
  function describeRestore(report, dryRun, replace = $("backup-replace").checked, fromCopy = false) {
    const parts = [plural(report.added, "word", "words") + (dryRun ? " would be added" : " added"),
      report.updated + (dryRun ? " would be updated" : " updated"),
      report.unchanged + " left as they are"];
    parts.push(report.trashed.toLocaleString() + (dryRun ? " would move" : " moved") + " to the Trash");
    if (report.skippedPurged) parts.push(report.skippedPurged + " skipped (deleted permanently)");
    if (report.answersAdded) parts.push(plural(report.answersAdded, "study answer", "study answers") + (dryRun ? " would be added" : " added"));
    let text = parts.join(", ") + (report.settingsNote ? "; " + report.settingsNote : "") + ".";
    // Words deleted permanently come back only with Replace, as new words: say so, where
    // a person restores a backup to undo an "Empty Trash".
    if (report.skippedPurged && !replace && !fromCopy) {
      text += " Words deleted permanently come back only with \u201cReplace\u201d ticked, as new words.";
    }
    if (report.strayTimesNote) text += " " + report.strayTimesNote;
    if (report.differingAtSameTimeNote) text += " " + report.differingAtSameTimeNote;
    if (report.mergedIntoEmpty) {
      text += " The library held no words, so the backup " + (dryRun ? "would be" : "was") + " merged, not replacing: its words keep"
        + " their own times, and edits your other devices made after the backup win when this library syncs with them.";
    } else if (replace && report.unchanged && !report.added && !report.updated && !report.trashed) {
      text += " The library " + (dryRun ? "equals" : "already equalled") + " the backup: every word of it " + (dryRun ? "would get" : "got")
        + " a new time, so it wins on every device this library syncs with"
        + (report.earlierUndoKept ? ", and \u201cUndo restore\u201d still undoes the restore before."
          : "; no restore came before it, and the new times cannot be undone.");
    } else if (replace && report.unchanged) {
      text += " Every word of the backup " + (dryRun ? "would get" : "got") + " a new time, so it wins on every device this library"
        + " syncs with: the " + report.unchanged.toLocaleString() + " left as they are here too.";
    }
    return text;
  }

  // The preview's fingerprint of the words a replace would move to the Trash: the
  // restore it confirms refuses to move others (words another device added meanwhile).
  let restoreSweptKey = "";

  function restoreURL(file, dryRun) {
    return "/api/backup/restore?" + query({
      dryRun: dryRun ? 1 : "", replace: $("backup-replace").checked ? 1 : "", name: file.name, key: dryRun ? "" : uploadKey("backup-file"),
      expectSwept: dryRun ? "" : restoreSweptKey,
    });
  }

  // Each preview asked for is numbered: only the newest one's answer is shown. A large
  // backup's preview takes seconds, and the answer to one asked before Replace was
  // toggled showed the other choice's counts, Restore enabled (round 26B #4).
  let restorePreviews = 0;

  async function checkBackup() {
    const asked = ++restorePreviews;
    $("backup-error").textContent = "";
    $("restore-done").textContent = "";
    const file = $("backup-file").files[0];
    if (!file) { $("backup-error").textContent = "Choose a backup file first."; return; }
    // The preview is for one choice of Replace: while it is made again, Restore waits.
    const confirm = $("restore-confirm");
    confirm.disabled = true;
    try {
      // Other devices' edits first, as the command line does: a replace gives every word of
      // the backup a new time, and one edited elsewhere and not pulled yet counted as
      // unchanged, had no undo, and lost that edit on every device.
      await syncFirst(false);
      const report = await api("POST", restoreURL(file, true), file);
      if (asked !== restorePreviews) return;
      restoreSweptKey = report.sweptKey || "";
      $("restore-report").textContent = "This restore" + ($("backup-replace").checked && !report.mergedIntoEmpty ? " (replace)" : "") + ": "
        + describeRestore(report, true) + " Nothing has changed yet.";
      showRestoreLists(report);
      const wasShown = !$("restore-preview").hidden;
      $("restore-preview").hidden = false;
      confirm.disabled = false;
      if (!wasShown) confirm.focus();
    } catch (error) {
      if (asked !== restorePreviews) return;
      $("restore-preview").hidden = true;
      $("backup-error").textContent = error.message;
    }
  }

  async function confirmRestore() {
    const file = $("backup-file").files[0];
    if (!file) return;
    try {
      const url = restoreURL(file, false);
      const report = await busy($("restore-confirm"), "Restoring\u2026", afterSync(() => runJob(uploadKey("backup-file"), url, file,
        $("restore-progress-box"), $("restore-progress"), $("restore-progress-text"))));
      $("restore-preview").hidden = true;
      $("restore-done").textContent = "Restored: " + describeRestore(report, false);
      chosenFileDone("backup-file");
      loadStatus();
      reload(); loadTags(); loadTrash(); scheduleSync();
    } catch (error) {
      // The library changed since the preview: the preview no longer says what would happen.
      if (error.field === "preview") $("restore-preview").hidden = true;
      $("backup-error").textContent = error.message;
    }
  }

  // What an undo says of the words it moved to the Trash that had been studied.
  function studiedAndTrashed(report) {
    return report.trashedStudied ? " " + report.trashedStudied.toLocaleString() + " of them had been studied: their answers"
      + " stay with them in the Trash, and come back if they are restored." : "";
  }

  async function undoRestore() {
    try {
      // A restore no sync has met is undone before any sync: one would send it, and its new
      // times would beat what other devices edited before it (round 22A #3).
      const report = await busy($("restore-undo"), "Undoing\u2026", async () => {
        clearTimeout(syncTimer);
        if (state.syncing) await state.syncRun;
        if (!(await api("GET", "/api/status")).restoreUnsent) await syncFirst();
        return api("POST", "/api/backup/undo", undoSources.restore ? { expect: undoSources.restore } : undefined);
      });
      $("undo-result").textContent = "The last restore was undone: " + plural(report.updated, "word", "words") + " put back, "
        + report.trashed.toLocaleString() + " moved to the Trash."
        + (report.keptEdited ? " " + plural(report.keptEdited, "word was", "words were") + " edited since the restore: their edits were kept." : "")
        + studiedAndTrashed(report)
        + (report.keptHeldElsewhere ? " " + plural(report.keptHeldElsewhere, "word was", "words were")
          + " kept as another device holds them: its own changes, synced from there." : "")
        + (report.undid ? " That was the restore of " + report.undid + "." : "")
        + (report.purgedSinceRestoreNote ? " " + report.purgedSinceRestoreNote : "")
        + (report.undoneBeforeSyncNote ? " " + report.undoneBeforeSyncNote : "")
        + (report.settingsLeftByUndoNote ? " " + report.settingsLeftByUndoNote : "");
      $("restore-done").textContent = "";
      loadStatus();
      reload(); loadTags(); loadTrash(); scheduleSync();
    } catch (error) { $("undo-result").textContent = error.message; if (error.status === 409) loadStatus(); }
  }

  // ---- Conflict copies --------------------------------------------------------------

  // A conflict copy a sync program set aside beside the library (two computers wrote the
  // library file in a synced folder): the words written in it are in no library anyone
  // opens. The command line names it on every command; the page names it above every
  // view, and takes its words in as a backup of the library (merged), with a preview first.
  let conflictCopy = "";

  async function loadConflicts() {
    let copies;
    try { copies = (await api("GET", "/api/conflicts")).copies; } catch (error) { return; }
    if (!copies.length) { $("copies-banner").hidden = true; conflictCopy = ""; return; }
    if (copies[0] !== conflictCopy) {
      conflictCopy = copies[0];
      $("copies-preview").hidden = true;
      $("copies-take").hidden = true;
      $("copies-error").textContent = "";
    }
    $("copies-text").textContent = "A sync program set aside a copy of this library beside it: " + conflictCopy
      + (copies.length > 1 ? " (and " + plural(copies.length - 1, "more copy", "more copies") + ")" : "")
      + ". Words written in it are not in this library. Check its words to see what taking them in would change:"
      + " the newer of each field wins, and nothing changes before you take them in.";
    $("copies-banner").hidden = false;
  }

  function conflictCopyURL(dryRun, key) {
    return "/api/backup/restore?" + query({ copy: conflictCopy, dryRun: dryRun ? 1 : "", key: key || "" });
  }

  async function checkConflictCopy() {
    $("copies-error").textContent = "";
    $("copies-take").hidden = true;
    try {
      const report = await busy($("copies-check"), "Checking\u2026", async () => {
        await syncFirst(false);
        return api("POST", conflictCopyURL(true));
      });
      $("copies-preview").textContent = "Taking it in: " + describeRestore(report, true, false, true) + " Nothing has changed yet.";
      $("copies-preview").hidden = false;
      $("copies-take").hidden = false;
      $("copies-take").focus();
    } catch (error) {
      $("copies-preview").hidden = true;
      $("copies-error").textContent = error.message;
    }
  }

  async function takeInConflictCopy() {
    const key = newJobKey();
    const copy = conflictCopy;
    try {
      const report = await busy($("copies-take"), "Taking in\u2026", afterSync(() => runJob(key, conflictCopyURL(false, key), undefined,
        $("copies-progress-box"), $("copies-progress"), $("copies-progress-text"))));
      $("copies-preview").hidden = true;
      $("copies-take").hidden = true;
      $("copies-done").textContent = "Taken in from " + copy + ": " + describeRestore(report, false, false, true)
        + " \u201cUndo restore\u201d in Settings puts things back. The copy itself can now be moved away or deleted.";
      loadConflicts();
      loadStatus();
      reload(); loadTags(); loadTrash(); scheduleSync();
    } catch (error) { $("copies-error").textContent = error.message; }
  }

  // The column mapping the user chose in the preview of a list without a header; null
  // lets the server read the columns by position (term, meaning, then notes).
  let importColumns = null;
  const importChoices = ["term", "meaning", "reading", "examples", "notes", "tags", "skip"];
  const importFields = ["term", "meaning", "reading", "examples", "notes", "tags"];

  function importURL(file, dryRun) {
    return "/api/import?" + query({
      name: file.name, columns: importColumns ? importColumns.join(",") : "",
      skipDuplicates: $("import-skip").checked ? 1 : "", dryRun: dryRun ? 1 : "", key: dryRun ? "" : uploadKey("import-file"),
    });
  }

  // One idempotency key per chosen file: the server refuses a second submit of the same
  // upload (a double click imported 100,000 words twice). Choosing the file again makes a new one.
  const uploadKeys = {};
  // A file sent whole is let go: choosing the same file again (to import it again after an
  // undo) fires no change in Chromium while it is still chosen, so the page kept its key
  // and the server refused it as "already submitted" (round 13B).
  function chosenFileDone(input) {
    delete uploadKeys[input];
    $(input).value = "";
  }
  function uploadKey(input) {
    if (!uploadKeys[input]) uploadKeys[input] = Date.now().toString(36) + "-" + Math.random().toString(36).slice(2);
    return uploadKeys[input];
  }

  // While a long action runs its button is disabled and says so.
  async function busy(button, label, action) {
    const before = button.textContent;
    button.disabled = true;
    button.textContent = label;
    button.setAttribute("aria-busy", "true");
    try { return await action(); } finally {
      button.disabled = false;
      button.textContent = before;
      button.removeAttribute("aria-busy");
    }
  }

  // Only the newest preview's answer is shown, and none of another file while it is made:
  // a large file's answer came after the next file's, and showed its rows, count or error
  // under the file chosen then (round 26B #3). `sameFile` (a column or option changed)
  // keeps the preview shown meanwhile.
  let importPreviews = 0;

  async function previewImport(sameFile) {
    const asked = ++importPreviews;
    $("import-error").textContent = "";
    const file = $("import-file").files[0];
    if (!sameFile || !file) $("import-preview").hidden = true;
    if (!file) return;
    try {
      const report = await api("POST", importURL(file, true), file);
      if (asked !== importPreviews) return;
      showImportPreview(report);
    } catch (error) {
      if (asked !== importPreviews) return;
      $("import-preview").hidden = true;
      $("import-error").textContent = error.message;
    }
  }

  function showImportPreview(report) {
    const list = report.format === "list";
    const separator = report.separator + (report.separatorLine ? " (as its sep= line says, left out)" : "");
    $("import-read-as").textContent = list
      ? (report.header
        ? "Read as a list separated by " + separator + ", its " + (report.separatorLine ? "second" : "first")
          + " row naming the columns (left out). Choose what each column holds:"
        : "Read as a list without a header, separated by " + separator + ". Choose what each column holds:")
      : "Read as " + report.formatTitle + ".";
    const head = $("import-head");
    const body = $("import-rows");
    head.replaceChildren();
    body.replaceChildren();
    if (list) {
      report.columns.forEach((column, index) => {
        const select = element("select");
        select.setAttribute("aria-label", "Column " + (index + 1));
        for (const choice of importChoices) {
          const option = element("option", "", choice);
          option.value = choice;
          option.selected = choice === column;
          select.append(option);
        }
        select.addEventListener("change", changeImportMapping);
        const cell = element("th");
        cell.append(select);
        head.append(cell);
      });
      for (const row of report.sample) {
        const line = element("tr");
        report.columns.forEach((_, index) => line.append(element("td", "", row.fields[index] || "")));
        body.append(line);
      }
    } else {
      const shown = importFields.filter((field) => field === "term" || report.sample.some((row) => String(row[field]).length > 0));
      for (const field of shown) head.append(element("th", "", field));
      for (const row of report.sample) {
        const line = element("tr");
        for (const field of shown) {
          const value = Array.isArray(row[field]) ? row[field].join(field === "tags" ? " " : " / ") : row[field];
          line.append(element("td", "", value));
        }
        body.append(line);
      }
    }
    let count = plural(report.added, "word", "words") + (report.splitWords ? " for " : " of ") + report.rows.toLocaleString()
      + " will be imported" + splitNote(report);
    if (report.skippedDuplicates) count += ", " + report.skippedDuplicates + " already in the library or earlier in the file skipped";
    if (report.alreadyImported) count += ", " + report.alreadyImported + " look-ups imported before left out" + lookupsInTrash(report);
    $("import-count").textContent = count + "." + describeLeftOut(report);
    $("import-preview").hidden = false;
  }

  // What reading an Anki package left out: sounds and images, notes without a term.
  function describeLeftOut(report) {
    let text = "";
    if (report.droppedMediaReferences) text += " " + report.droppedMediaReferences + " media references (sounds and images) were left out.";
    if (report.notesWithoutTerm) text += " " + plural(report.notesWithoutTerm, "note", "notes") + " without a term " + (report.notesWithoutTerm === 1 ? "was" : "were") + " left out.";
    if (report.sentencesTooLong) {
      text += " " + plural(report.sentencesTooLong, "look-up sentence", "look-up sentences") + " longer than an example may be "
        + (report.sentencesTooLong === 1 ? "was" : "were") + " left out.";
    }
    if (report.notesOverLimit) {
      text += " " + plural(report.notesOverLimit, "note", "notes") + " too long for a word " + (report.notesOverLimit === 1 ? "was" : "were")
        + " left out" + (report.firstNoteOverLimit ? " (the first: " + report.firstNoteOverLimit + ")" : "") + ".";
    }
    return text;
  }

  // A mapping that cannot be imported is said next to the columns, which stay, so it can
  // be put right there (the server's refusal would take the preview away).
  let importMappingProblem = "";
  function changeImportMapping() {
    const chosen = Array.from(document.querySelectorAll("#import-head select"), (select) => select.value);
    importMappingProblem = mappingProblem(chosen);
    $("import-error").textContent = importMappingProblem;
    if (importMappingProblem) return;
    importColumns = chosen;
    previewImport(true);
  }

  function mappingProblem(columns) {
    if (!columns.includes("term")) return "Choose the column that holds the term.";
    for (const name of ["term", "meaning", "reading", "examples", "tags"]) {
      if (columns.filter((column) => column === name).length > 1) {
        return "Two columns are set to \u201c" + name + "\u201d: choose one (only notes can come from several columns).";
      }
    }
    return "";
  }

  // Words of a looked-up word's sentences past the 50 one word holds: its term again, said
  // as such (round 26B #5).
  function splitNote(report) {
    if (!report.splitWords) return "";
    return " (" + report.splitWords.toLocaleString() + (report.splitWords === 1 ? " holds" : " hold")
      + " the look-ups past the 50 sentences one word holds, under the same term)";
  }

  async function importFile() {
    $("import-error").textContent = "";
    $("import-result").textContent = "";
    const file = $("import-file").files[0];
    if (!file) { $("import-error").textContent = "Choose a file first."; return; }
    if (importMappingProblem) { $("import-error").textContent = importMappingProblem; return; }
    try {
      if ($("import-button").disabled) return;
      const url = importURL(file, false);
      const report = await busy($("import-button"), "Importing\u2026", () => runJob(uploadKey("import-file"), url, file,
        $("import-progress-box"), $("import-progress"), $("import-progress-text")));
      // An import only adds words: it never updates one or moves one to the Trash.
      let text = "Imported " + plural(report.added, "word", "words") + " (" + (report.format === "list" ? "a list without a header" : report.formatTitle) + ")"
        + (report.skippedDuplicates ? "; " + report.skippedDuplicates.toLocaleString() + " skipped as duplicates." : ".");
      if (report.duplicatesAdded) {
        text += " " + report.duplicatesAdded.toLocaleString() + (report.duplicatesAdded === 1 ? " has" : " have")
          + " the same term as another word, in the library or earlier in the file (added anyway).";
      }
      if (report.alreadyImported) text += " " + report.alreadyImported + " look-ups imported before were left out" + lookupsInTrash(report) + ".";
      if (report.splitWords) text += " " + splitNote(report).trim() + ".";
      $("import-result").textContent = text + describeLeftOut(report);
      $("import-preview").hidden = true;
      chosenFileDone("import-file");
      loadStatus();
      reload(); loadTags(); scheduleSync();
    } catch (error) { $("import-error").textContent = error.message; }
  }

  async function undoImport() {
    try {
      const key = newJobKey();
      const report = await busy($("import-undo"), "Undoing\u2026", afterSync(() => runJob(key, "/api/import/undo?" + query({ key }),
        undoSources.import ? { expect: undoSources.import } : {},
        $("undo-progress-box"), $("undo-progress"), $("undo-progress-text"))));
      let text = "The last import was undone: " + plural(report.trashed, "word", "words") + " moved to the Trash.";
      text += studiedAndTrashed(report);
      if (report.keptEdited) text += " " + plural(report.keptEdited, "word was", "words were")
        + " changed since the import (edited, or moved to the Trash and back) and kept.";
      if (report.alreadyGone) text += " " + plural(report.alreadyGone, "word was", "words were")
        + " in the Trash already, or deleted permanently, and left as " + (report.alreadyGone === 1 ? "it was." : "they were.");
      if (report.undid) text += " That was the import of " + report.undid + ".";
      $("undo-result").textContent = text;
      $("import-result").textContent = "";
      loadStatus();
      reload(); loadTags(); loadTrash(); scheduleSync();
    } catch (error) { $("undo-result").textContent = error.message; if (error.status === 409) loadStatus(); }
  }

  // ---- Long actions: disabled buttons, progress and results ------------------------
  // An import, restore or sync carries a key; while its request runs the page asks the
  // server how far it has come (GET /api/jobs/KEY) and shows it under the button.

  function newJobKey() { return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2); }

  // The action runs on the server in the background (async=1): its request answers 202
  // at once, and the page polls the job until it is finished, showing how far it has come.
  // Changes the person started that run on the server now (`runJob`).
  let changesRunning = 0;

  async function runJob(key, url, body, box, bar, label) {
    box.hidden = false;
    bar.removeAttribute("value");
    if (label) label.textContent = "Sending\u2026";
    // Leaving the page asks while a change the person made runs (a sync does not count):
    // a reload during a bulk action left the page listing the words as before, its Undo
    // gone, with nothing said (round 13B).
    const change = !url.startsWith("/api/sync");
    if (change) changesRunning += 1;
    try {
      await api("POST", url + (url.includes("?") ? "&" : "?") + "async=1", body);
      // The first looks come soon, so a short action (a tag on a few words) answers at once.
      // When the looks first went unanswered, on a clock that only moves on (null: they are
      // answered).
      let failingSince = null;
      for (let wait = 25; ; wait = Math.min(200, wait * 2)) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        let job;
        try { job = await api("GET", "/api/jobs/" + encodeURIComponent(key)); } catch (error) {
          // The server forgot it: started again, or the action ended long ago (it keeps the
          // last 100). Said to be undone, a finished import was made twice (round 15B).
          if (error.status === 404) {
            throw new Error("The server no longer knows this action: it was started again, or the action ended a while ago. "
              + "What it did may well be done: look before starting it again (Settings names the last import and the last restore under"
              + " Undo import and Undo restore).");
          }
          // The action runs on in the server: a moment without an answer (Wi-Fi dropping,
          // the computer busy) is waited out, for two minutes from the first look that went
          // unanswered, instead of reported as a failure while the action completed (round
          // 13B). Counted from the last answer, a computer back from sleep gave up at once;
          // by the wall clock, one set back waited for ever (round 15B).
          if (error.unreachable) {
            if (failingSince === null) failingSince = performance.now();
            if (performance.now() - failingSince < 120000) {
              if (label) label.textContent = "MiDiccio is not answering; waiting for the outcome\u2026";
              continue;
            }
          }
          throw error;
        }
        failingSince = null;
        if (job.finished) {
          if (job.status >= 400) throw apiFailure(job.status, job.answer);
          return job.answer;
        }
        if (job.total > 0 && job.done < job.total) {
          bar.max = job.total;
          bar.value = job.done;
          if (label) label.textContent = job.phase + ": " + job.done.toLocaleString() + " of " + job.total.toLocaleString() + " " + job.unit;
        } else if (job.total > 0) {
          // Every word handed over, the step still ends (a bulk action's search index and
          // commit take seconds at a million words): a moving bar, not one stuck at its end.
          bar.removeAttribute("value");
          if (label) label.textContent = job.phase + ": " + job.total.toLocaleString() + " " + job.unit + " done, finishing\u2026";
        } else {
          bar.removeAttribute("value");
          if (label) label.textContent = job.phase + "\u2026";
        }
      }
    } finally {
      if (change) changesRunning -= 1;
      box.hidden = true;
      // A caller that shows an outcome in the label writes it after this, before the page is drawn again.
      if (label) label.textContent = "";
    }
  }

  // "Undo restore" and "Undo import" sit at the top of Settings whenever there is
  // something to undo.
  // Each names what it undoes, and the undo is sent with that name: an import made in a
  // terminal since the page showed the button is not undone in its place (round 14A).
  const undoSources = { restore: null, import: null };
  // The button names the file and the minute; the undo sends the action's own key, so one
  // made in a terminal meanwhile with a file of the same name is not undone in its place.
  function showUndo(canUndoRestore, canUndoImport, restoreSource, importSource, restoreKey, importKey) {
    undoSources.restore = restoreKey || null;
    undoSources.import = importKey || null;
    $("restore-undo").textContent = "Undo restore" + (restoreSource ? " of " + restoreSource : "");
    $("import-undo").textContent = "Undo import" + (importSource ? " of " + importSource : "");
    $("restore-undo").hidden = !canUndoRestore;
    $("import-undo").hidden = !canUndoImport;
    $("undo-card").hidden = !canUndoRestore && !canUndoImport && !$("undo-result").textContent;
  }

  // The preview names the words: the first 50 of each kind, with the counts.
  function showRestoreLists(report) {
    const box = $("restore-lists");
    box.replaceChildren();
    const kinds = [["addedTerms", report.added, "would be added"], ["updatedTerms", report.updated, "would change"],
      ["trashedTerms", report.trashed, "would move to the Trash"],
      ["skippedPurgedTerms", report.skippedPurged, "deleted permanently, left out"]];
    for (const [key, count, what] of kinds) {
      if (!count) continue;
      const details = element("details", "restore-list");
      const shown = report[key].length;
      details.append(element("summary", "", plural(count, "word", "words") + " " + what
        + (shown < count ? " (the first " + shown + " shown)" : "")));
      const list = element("ul");
      list.setAttribute("data-kind", key);
      for (const term of report[key]) {
        const item = element("li");
        const text = element("bdi", "", term);
        text.dir = "auto";
        item.append(text);
        list.append(item);
      }
      details.append(list);
      box.append(details);
    }
  }

  // Downloads (backup, CSV, TSV) run through fetch, so the button can wait and count bytes.
  async function download(button) {
    if (button.disabled) return;
    const label = $("download-progress");
    const before = button.textContent;
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    button.textContent = "Preparing\u2026";
    label.textContent = "";
    try {
      const response = await fetch(button.dataset.href, { credentials: "same-origin" });
      if (!response.ok) {
        let message = "The download failed (" + response.status + ")";
        try { message = (await response.json()).error || message; } catch (error) { /* keep the status */ }
        throw new Error(message);
      }
      const size = Number(response.headers.get("Content-Length")) || 0;
      const reader = response.body.getReader();
      const parts = [];
      let received = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
        received += value.length;
        label.textContent = "Downloading: " + kilobytes(received) + (size ? " of " + kilobytes(size) : "");
      }
      const disposition = response.headers.get("Content-Disposition") || "";
      const name = (disposition.match(/filename="([^"]+)"/) || [])[1] || "midiccio-download";
      const url = URL.createObjectURL(new Blob(parts, { type: response.headers.get("Content-Type") || "" }));
      const link = element("a");
      link.href = url;
      link.download = name;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60000);
      label.textContent = "Downloaded " + name + " (" + kilobytes(received) + ").";
    } catch (error) {
      label.textContent = error.message;
    } finally {
      button.disabled = false;
      button.removeAttribute("aria-busy");
      button.textContent = before;
    }
  }

  function kilobytes(bytes) { return Math.max(1, Math.round(bytes / 1024)).toLocaleString() + " KB"; }

  // ---- Phones and other browsers (serve --lan) -------------------------------------

  async function loadPairing() {
    $("pairing-error").textContent = "";
    let pairing;
    try { pairing = await api("GET", "/api/pairing"); } catch (error) { return; }
    $("pairing-card").hidden = !pairing.lan;
    if (!pairing.lan) return;
    // Only this computer's own browser is shown a pairing address, holding a one-time
    // code: a paired phone could otherwise pair itself again after a sign-out.
    $("pairing-here").hidden = pairing.address === null;
    $("pairing-elsewhere").hidden = pairing.address !== null;
    if (pairing.address !== null) {
      $("pairing-address").textContent = pairing.address;
      // No-store on the server: the QR code holds the one-time code.
      $("pairing-code").src = "/pairing.svg?code=" + encodeURIComponent(pairing.code);
    }
    const list = $("paired-browsers");
    list.replaceChildren();
    for (const browser of pairing.browsers) {
      const item = document.createElement("li");
      const name = document.createElement("span");
      name.textContent = browser.userAgent || "A browser";
      const seen = document.createElement("span");
      seen.className = "muted";
      seen.textContent = " last seen " + new Date(browser.lastSeen).toLocaleString();
      const signOut = document.createElement("button");
      signOut.type = "button";
      signOut.textContent = "Sign out";
      signOut.addEventListener("click", async () => {
        try {
          await api("POST", "/api/pairing/signout", { id: browser.id });
          loadPairing();
        } catch (error) { $("pairing-error").textContent = error.message; }
      });
      item.append(name, seen, " ", signOut);
      list.append(item);
    }
  }

  // Installable on a phone: the service worker keeps the app shell for a "not
  // reachable" page. Browsers allow one only on HTTPS (or on this computer itself).
  if ("serviceWorker" in navigator && window.isSecureContext) {
    navigator.serviceWorker.register("/sw.js").catch(() => {});
  }

  window.addEventListener("hashchange", () => { if (location.hash === "#settings") loadPairing(); });
  if (location.hash === "#settings") loadPairing();

  // ---- Study (spaced repetition) ---------------------------------------------------

  // `given`: the answers this page gave, the last one last; Undo takes back these alone,
  // never another program's answer, nor one given in an earlier session.
  const study = { card: null, revealed: false, shownAt: 0, busy: false, tag: "", reverse: false, extraNew: 0, extraFrom: 0, studiedNew: 0, request: 0, given: [], syncedAlready: false, comeBackTimer: null };
  const clockFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });

  function studyVisible() { return !$("study-view").hidden; }

  async function loadStudyTags() {
    try {
      const data = await api("GET", "/api/tags");
      const select = $("study-tag"), chosen = study.tag;
      select.replaceChildren(element("option", "", "All words"));
      select.firstChild.value = "";
      for (const entry of data.tags) {
        const option = element("option", "", entry.tag + " (" + entry.count.toLocaleString() + ")");
        option.value = entry.tag;
        option.dir = "auto";
        select.append(option);
      }
      // A tag taken off every word elsewhere while it was being studied stays chosen and
      // says so, where the menu went blank (round 14B).
      if (chosen && !data.tags.some((entry) => entry.tag === chosen)) {
        const gone = element("option", "", chosen + " (on no word now)");
        gone.value = chosen;
        gone.dir = "auto";
        select.append(gone);
      }
      select.value = chosen;
    } catch (error) { /* the tag list stays as it was */ }
  }

  // Only the newest request's answer is shown: choosing a tag while the first (untagged)
  // queue is still being read must not be overwritten when that older answer arrives.
  async function loadStudyCard() {
    const request = ++study.request;
    try {
      const data = await api("GET", "/api/study?" + query({
        tag: study.tag, extraNew: study.extraNew || "", extraFrom: study.extraNew ? study.extraFrom : "" }));
      if (!study.extraNew) study.studiedNew = data.studiedNew;
      if (request !== study.request) return;
      showStudyCard(data);
      showStudyLimits(data);
    } catch (error) {
      if (request === study.request) toast(error.message);
    }
    loadProgress();
  }

  // The synced daily limits, unless the user is typing in them (or `saved`: both, as saved).
  function showStudyLimits(data, saved) {
    for (const [id, value] of [["study-new-per-day", data.newPerDay], ["study-reviews-per-day", data.reviewsPerDay]]) {
      if (saved || document.activeElement !== $(id)) { $(id).value = String(value); limitsShown[id] = String(value); }
    }
  }
  // What each limit's box showed as the synced value: only a box changed here is saved
  // (both were, and the other put back a value another device had set meanwhile: round 13B).
  const limitsShown = {};

  function showStudyCard(data) {
    study.card = data.card;
    study.revealed = false;
    $("study-counts").textContent = plural(data.due, "due", "due") + " \u00b7 " + plural(data.new, "new", "new")
      + " \u00b7 " + plural(data.studiedReviews + data.studiedNew, "answer today", "answers today");
    $("study-card").hidden = !data.card;
    $("study-done").hidden = !!data.card;
    clearTimeout(study.comeBackTimer);
    if (!data.card) {
      // The tag studied may be on no word now (taken off elsewhere): the menu says so.
      if (study.tag) loadStudyTags();
      // Words held back by today's review limit: the limit is why, and it can be raised
      // right below (it read "Nothing is scheduled": round 14B).
      if (data.dueBeyondLimit > 0) {
        $("study-done-title").textContent = "Today\u2019s review limit is reached";
        $("study-done-text").textContent = plural(data.dueBeyondLimit, "more word is", "more words are")
          + " due. Raise \u201cReviews a day\u201d below to go on, or come back tomorrow.";
        return;
      }
      $("study-done-title").textContent = "Nothing to study now";
      // The wait is counted on this computer's clock, and the time shown on the device's
      // own: a phone an hour ahead asked for a card every second for an hour (round 20A #3).
      const wait = data.nextDue ? new Date(data.nextDue) - new Date(data.now) : null;
      const next = wait === null ? null : new Date(Date.now() + wait);
      const today = next && next.toDateString() === new Date().toDateString();
      $("study-done-text").textContent = next
        ? "Come back at " + clockFormat.format(next) + (today ? "." : " on " + dayFormat.format(next) + ".")
        : "Nothing is scheduled. New words (within today's limit) and words you add show up here.";
      // At that time the card comes by itself: "Come back at" stayed, with no card, on a
      // page left open past it (round 14B). Timers wait at most about 24 days.
      if (next) study.comeBackTimer = setTimeout(() => { if (studyVisible()) loadStudyCard(); }, Math.min(2147483000, Math.max(0, wait) + 1000));
      return;
    }
    $("study-state").textContent = data.card.study.state;
    fillStudyWord(data.card.word);
    // Read out to a screen reader: the card's front as it comes (nothing was: round 14B).
    $("study-announce").textContent = "Next: " + $("study-front").textContent;
    $("study-back-side").hidden = true;
    $("study-grades").hidden = true;
    $("study-reveal").hidden = false;
    study.shownAt = Date.now();
  }

  function fillStudyWord(word) {
    $("study-front").textContent = study.reverse ? (word.meaning || "(no meaning)") : word.term;
    $("study-answer").textContent = study.reverse ? word.term : word.meaning;
    $("study-reading").textContent = word.reading;
    $("study-examples").replaceChildren(...word.examples.map((example) => userText("li", "", example)));
    $("study-notes").textContent = word.notes;
  }

  function revealStudyCard() {
    if (!study.card || study.revealed) return;
    study.revealed = true;
    $("study-back-side").hidden = false;
    $("study-reveal").hidden = true;
    $("study-grades").hidden = false;
    // And the answer once it is shown.
    $("study-announce").textContent = "Answer: " + [$("study-answer").textContent, $("study-reading").textContent]
      .filter(Boolean).join(", ");
    refreshStudyWord(study.card);
  }

  // The card was read when it was shown; the word may have changed elsewhere since (the
  // command line, a sync, another window). The answer shows the word as it is now, and
  // says so, rather than text the grade would then be recorded against unseen.
  async function refreshStudyWord(card) {
    let now;
    try {
      now = (await api("GET", "/api/words/" + card.word.id)).word;
    } catch (error) { return; /* a word deleted meanwhile is said when it is answered */ }
    if (study.card !== card) return;
    const fields = ["term", "meaning", "reading", "notes"];
    const changed = fields.some((field) => now[field] !== card.word[field])
      || JSON.stringify(now.examples) !== JSON.stringify(card.word.examples);
    if (!changed) return;
    card.word = now;
    fillStudyWord(now);
    toast(quoted(now.term) + " was changed elsewhere meanwhile: shown as it is now.");
  }

  async function answerStudyCard(grade) {
    if (!study.card || !study.revealed || study.busy) return;
    study.busy = true;
    try {
      // A clock set back while the card was shown gave a negative time, which the server
      // refused for every grade until a reload (round 14B): none is taken as 0.
      const seconds = Math.max(0, Math.min(86400, Math.round((Date.now() - study.shownAt) / 1000)));
      const data = await api("POST", "/api/study/answer",
        { id: study.card.word.id, grade: String(grade), seconds, reviews: study.card.study.reviews });
      if (data.answer) study.given.push(Object.assign({ id: data.id }, data.answer));
      await loadStudyCard();
    } catch (error) {
      if (error.field === "answered") {
        // Answered in another tab or on another device since shown: on to the next card.
        toast(error.message);
        await loadStudyCard();
      } else if (error.field === "library" || error.field === "csrf") {
        // The server now serves another library (or was started again): the server's own
        // words, to reload. Every answer read "deleted meanwhile" before (round 13B).
        toast(error.message);
      } else if (error.status === 404 || error.status === 409) {
        // Deleted, or gone with a restored backup, while the card was shown: on to the next.
        toast("Not recorded: " + quoted(study.card.word.term) + " is no longer in the library (deleted meanwhile)");
        await loadStudyCard();
      } else {
        toast(error.message);
      }
    } finally { study.busy = false; }
  }

  async function undoStudyAnswer() {
    if (study.busy) return;
    study.busy = true;
    const last = study.given.pop();
    try {
      if (!last) {
        // After a refusal, the answers before it were synced too: that is the reason (round 16B).
        toast(study.syncedAlready ? "Nothing to undo: the answers given before were synced already, and other devices count them."
          : "Nothing to undo: no answer was given here since this page was opened.");
        return;
      }
      const data = await api("POST", "/api/study/undo", last);
      toast("Undone: " + quoted(data.term || "a word") + " (" + data.grade + ")");
      await loadStudyCard();
    } catch (error) {
      // Synced already: so were the answers before it. Its word deleted permanently
      // meanwhile (410): the answers before it stay undoable. Any other failure (a busy
      // library, a dropped connection) keeps this one to undo again: it was lost, and the
      // page then said no answer had been given (round 23B #7).
      if (error.status === 409) { study.given = []; study.syncedAlready = true; }
      else if (error.status !== 410) study.given.push(last);
      toast(error.message);
    } finally { study.busy = false; }
  }

  async function loadProgress() {
    try {
      const stats = await api("GET", "/api/stats");
      const counts = Object.entries(stats.counts).map(([name, count]) => count.toLocaleString() + " " + name).join(", ");
      const retention = stats.trueRetention === null ? "\u2013" : (stats.trueRetention * 100).toFixed(1) + " %";
      $("study-stats").textContent = "True retention (30 days): " + retention + " of "
        + plural(stats.retentionAnswers, "answer", "answers") + ". Words: " + counts + ".";
    } catch (error) { $("study-stats").textContent = error.message; }
    // The charts are drawn by the server and put inline (parsed as SVG, never as HTML), so
    // app.css colours them for light and dark pages through their classes.
    const stamp = Date.now();
    showChart("chart-reviews", "/study/reviews.svg?t=" + stamp);
    showChart("chart-forecast", "/study/forecast.svg?t=" + stamp);
  }

  async function showChart(id, address) {
    const box = $(id);
    try {
      const response = await fetch(address, { credentials: "same-origin" });
      if (!response.ok) throw new Error("The chart could not be loaded (" + response.status + ").");
      const parsed = new DOMParser().parseFromString(await response.text(), "image/svg+xml");
      const svg = parsed.documentElement;
      if (svg.namespaceURI !== "http://www.w3.org/2000/svg") throw new Error("The chart could not be read.");
      svg.setAttribute("aria-hidden", "true");
      box.replaceChildren(document.importNode(svg, true));
    } catch (error) { box.textContent = error.message; }
  }

  function openStudy() {
    study.tag = $("study-tag").value;
    study.reverse = $("study-reverse").checked;
    loadStudyTags();
    loadStudyCard();
    $("study-title").focus();
  }

  $("study-button").addEventListener("click", () => { location.hash = "#study"; });
  $("study-back").addEventListener("click", () => { location.hash = ""; });
  // After the tag or the direction changes, the keys (Space, 1-4) go to the card again,
  // not to the control, where Space would flip the box back.
  $("study-tag").addEventListener("change", () => { study.tag = $("study-tag").value; loadStudyCard(); $("study-title").focus(); });
  // "More new words today": N new words beyond today's limit, for this visit (as `study --new`).
  $("study-more-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const extra = Number($("study-extra").value);
    if (!Number.isInteger(extra) || extra < 1 || extra > 9999) { toast("Enter a whole number from 1 to 9999."); return; }
    // Counted from the new words studied today when the first extra ones were asked for.
    if (!study.extraNew) study.extraFrom = study.studiedNew || 0;
    study.extraNew += extra;
    toast(plural(extra, "more new word", "more new words") + " today.");
    loadStudyCard();
  });
  $("study-limits-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const body = {};
      for (const [name, id] of [["newPerDay", "study-new-per-day"], ["reviewsPerDay", "study-reviews-per-day"]]) {
        if ($(id).value !== limitsShown[id]) body[name] = Number($(id).value);
      }
      if (!Object.keys(body).length) { toast("The daily limits are as they were."); return; }
      const data = await api("POST", "/api/study/limits", body);
      showStudyLimits(data, true);
      toast("Daily limits: " + data.newPerDay + " new words, " + data.reviewsPerDay + " reviews.");
      loadStudyCard();
    } catch (error) { toast(error.message); }
  });
  $("study-reverse").addEventListener("change", () => {
    study.reverse = $("study-reverse").checked;
    loadStudyCard();
    $("study-title").focus();
  });
  $("study-reveal").addEventListener("click", revealStudyCard);
  for (const button of $("study-grades").querySelectorAll("button")) {
    button.addEventListener("click", () => answerStudyCard(Number(button.dataset.grade)));
  }
  $("study-undo").addEventListener("click", undoStudyAnswer);
  // The Study page's keys come first (capture), so `u` and the digits never reach the
  // list's own shortcuts while studying.
  window.addEventListener("keydown", (event) => {
    if (!studyVisible() || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest("input, textarea, select, dialog")) return;
    const key = event.key;
    if (key === " " || key === "Enter") {
      // A focused button takes its own key: Space on "Good" or "Save limits" revealed the
      // card instead of pressing it (round 14B).
      if (event.target.closest("button")) return;
      event.preventDefault(); event.stopPropagation();
      revealStudyCard();
    } else if (["1", "2", "3", "4"].includes(key)) {
      event.preventDefault(); event.stopPropagation();
      answerStudyCard(Number(key));
    } else if (key === "u" || key === "U") {
      event.preventDefault(); event.stopPropagation();
      undoStudyAnswer();
    }
  }, true);

  // ---- Browse table, selection and bulk actions --------------------------------------

  // Cards, or a compact table of one row a word; the choice is kept in this browser.
  const VIEW_KEY = "midiccio.view";
  function storedView() {
    try { return localStorage.getItem(VIEW_KEY) === "table" ? "table" : "cards"; } catch (error) { return "cards"; }
  }
  function showView(view, remember) {
    const table = view === "table";
    $("words").classList.toggle("table", table);
    $("list-view").classList.toggle("wide", table);
    $("table-head").hidden = !table;
    $("view-table").setAttribute("aria-pressed", String(table));
    $("view-cards").setAttribute("aria-pressed", String(!table));
    showColumns();
    if (remember) { try { localStorage.setItem(VIEW_KEY, view); } catch (error) { /* private mode: not kept */ } }
  }

  // The table's Word, Meaning and Tags columns: drag a column's right edge (or focus it
  // and press the arrow keys) to widen or narrow it; a double click or Home gives it back
  // its automatic width. The widths are kept in this browser.
  const COLUMNS_KEY = "midiccio.columns", COLUMN_NAMES = ["term", "meaning", "tags"], MIN_COLUMN = 80;
  const columnWidths = (() => {
    try {
      const stored = JSON.parse(localStorage.getItem(COLUMNS_KEY) || "{}");
      return Object.fromEntries(COLUMN_NAMES.filter((name) => Number(stored[name]) >= MIN_COLUMN).map((name) => [name, Number(stored[name])]));
    } catch (error) { return {}; }
  })();

  function columnCell(name) { return $("table-head").querySelector('[data-column="' + name + '"]'); }

  // The widest `name` may be with the other columns at their set widths (or their least).
  function columnLimit(name) {
    const head = $("table-head"), style = getComputedStyle(head);
    const cells = [...head.children];
    let room = head.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
      - parseFloat(style.columnGap || "0") * (cells.length - 1);
    for (const cell of cells) {
      const other = cell.dataset.column;
      if (other === name) continue;
      room -= other && !columnWidths[other] ? MIN_COLUMN : cell.getBoundingClientRect().width;
    }
    return Math.max(MIN_COLUMN, Math.floor(room));
  }

  function showColumns() {
    for (const name of COLUMN_NAMES) {
      if (columnWidths[name]) $("list-view").style.setProperty("--col-" + name, columnWidths[name] + "px");
      else $("list-view").style.removeProperty("--col-" + name);
    }
    if ($("table-head").hidden) return;
    for (const name of COLUMN_NAMES) {
      const edge = columnCell(name).querySelector(".column-edge");
      const width = Math.round(columnCell(name).getBoundingClientRect().width);
      edge.setAttribute("aria-valuemin", String(MIN_COLUMN));
      edge.setAttribute("aria-valuemax", String(Math.max(width, columnLimit(name))));
      edge.setAttribute("aria-valuenow", String(width));
      edge.setAttribute("aria-valuetext", width + " pixels" + (columnWidths[name] ? "" : ", automatic"));
    }
  }

  function setColumn(name, width, keep) {
    if (width === null) delete columnWidths[name];
    else columnWidths[name] = Math.round(Math.min(columnLimit(name), Math.max(MIN_COLUMN, width)));
    showColumns();
    if (keep) { try { localStorage.setItem(COLUMNS_KEY, JSON.stringify(columnWidths)); } catch (error) { /* private mode: not kept */ } }
  }

  for (const name of COLUMN_NAMES) {
    const edge = columnCell(name).querySelector(".column-edge");
    let dragFrom = null;
    edge.addEventListener("pointerdown", (event) => {
      if (event.button !== 0) return;
      event.preventDefault();
      dragFrom = { x: event.clientX, width: columnCell(name).getBoundingClientRect().width };
      edge.setPointerCapture(event.pointerId);
      edge.classList.add("dragging");
    });
    edge.addEventListener("pointermove", (event) => {
      if (dragFrom) setColumn(name, dragFrom.width + event.clientX - dragFrom.x, false);
    });
    const endDrag = () => {
      if (!dragFrom) return;
      dragFrom = null;
      edge.classList.remove("dragging");
      setColumn(name, columnWidths[name] ?? null, true);
    };
    edge.addEventListener("pointerup", endDrag);
    edge.addEventListener("pointercancel", endDrag);
    edge.addEventListener("dblclick", () => setColumn(name, null, true));
    edge.addEventListener("keydown", (event) => {
      const step = event.shiftKey ? 64 : 16;
      const now = columnCell(name).getBoundingClientRect().width;
      if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
        event.preventDefault();
        setColumn(name, now + (event.key === "ArrowRight" ? step : -step), true);
      } else if (event.key === "Home") {
        event.preventDefault();
        setColumn(name, null, true);
      }
    });
  }
  window.addEventListener("resize", () => { if (!$("table-head").hidden) showColumns(); });

  const updatedFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });
  function shortTime(iso) { return iso ? updatedFormat.format(new Date(iso)) : ""; }

  // A word's tags as buttons: clicking one shows the words with that tag.
  function tagButtons(tags) {
    const box = element("span", "tags");
    for (const tag of tags) {
      const button = element("button", "tag");
      button.type = "button";
      button.append(userText("bdi", "", tag));
      button.setAttribute("aria-label", "Show words tagged " + tag);
      button.addEventListener("click", () => filterByTag(tag));
      box.append(button);
    }
    return box;
  }

  function filterByTag(tag) {
    const select = $("tag-filter");
    let option = Array.from(select.options).find((entry) => tagKey(entry.value) === tagKey(tag));
    if (!option) {
      option = element("option", "", tag);
      option.value = tag;
      select.append(option);
    }
    state.tag = option.value;
    select.value = option.value;
    writeAddress(true);
    reload();
    $("words").focus();
  }

  // The selection: ticked words by id, or every match of the current search and tag
  // ("all": the server picks them when the action runs).
  const selection = { ids: new Set(), all: false, anchor: null, key: "" };

  function pickBox(word) {
    const box = element("input", "word-pick");
    box.type = "checkbox";
    box.checked = selection.all || selection.ids.has(word.id);
    box.setAttribute("aria-label", "Select " + word.term);
    box.addEventListener("click", (event) => {
      rangeClick([...$("words").querySelectorAll(".word-pick")], box, event, selection);
      readSelection(box.checked);
    });
    return box;
  }

  // A click on a checkbox; with Shift, every box from the last one clicked to this one
  // takes this one's state.
  function rangeClick(boxes, box, event, holder) {
    const at = boxes.indexOf(box);
    const from = holder.anchor ? boxes.indexOf(holder.anchor) : -1;
    if (event.shiftKey && from !== -1 && at !== -1) {
      const [low, high] = from < at ? [from, at] : [at, from];
      for (let index = low; index <= high; index += 1) boxes[index].checked = box.checked;
    }
    holder.anchor = box;
  }

  // The ticked boxes into the selection; unticking one ends "all matches".
  function readSelection(ticked) {
    if (!ticked) selection.all = false;
    for (const box of $("words").querySelectorAll(".word-pick")) {
      const id = box.closest("li").dataset.id;
      if (box.checked) selection.ids.add(id); else selection.ids.delete(id);
    }
    showSelection();
  }

  function selectedCount() { return selection.all ? (state.total || 0) : selection.ids.size; }

  function showSelection() {
    const count = selectedCount();
    $("bulk-bar").hidden = count === 0;
    const filtered = state.query || state.tag;
    $("bulk-count").textContent = selection.all
      ? "All " + plural(count, filtered ? "match" : "word", filtered ? "matches" : "words") + " selected"
      : plural(count, "word", "words") + " selected";
    const all = $("bulk-all");
    all.hidden = selection.all || count === 0 || state.total === null || state.total <= count;
    if (state.total !== null) all.textContent = "Select all " + state.total.toLocaleString() + (filtered ? " matches" : " words");
  }

  function clearSelection() {
    selection.ids.clear();
    selection.all = false;
    selection.anchor = null;
    for (const box of $("words").querySelectorAll(".word-pick")) box.checked = false;
    showSelection();
  }

  function selectAllMatches() {
    selection.all = true;
    takeSelectionKey("matches", { q: state.query, filterTag: state.tag, shown: state.mark }, async () => {
      clearSelection();
      await reload();
    });
    for (const box of $("words").querySelectorAll(".word-pick")) {
      box.checked = true;
      selection.ids.add(box.closest("li").dataset.id);
    }
    showSelection();
  }

  // A new search or tag starts a new selection; a reload after an edit keeps it.
  function keepSelectionFor(key) {
    if (selection.key !== key) { selection.key = key; clearSelection(); }
  }

  // "All matches" carries the count the person saw: words added, changed or deleted
  // elsewhere meanwhile (another window, the command line, a sync) make the server refuse,
  // rather than act on words nobody saw counted.
  function bulkTarget() {
    return selection.all ? { select: "matches", q: state.query, filterTag: state.tag, expect: state.total } : { ids: [...selection.ids] };
  }

  async function bulkTag(remove) {
    const tag = $("bulk-tag").value.trim();
    if (!tag) { toast("Type the tag to " + (remove ? "remove" : "add") + " first."); $("bulk-tag").focus(); return; }
    await bulkRun("tag", Object.assign(bulkTarget(), { tag, remove }), false, (data) =>
      (remove ? "Removed the tag " : "Added the tag ") + quoted(tag) + (remove ? " from " : " to ") + plural(data.changed, "word", "words")
      + leftOutNote(data));
  }

  // Words already holding the most tags a word can were left out of a tag put on many:
  // say how many, and name the first few.
  function leftOutNote(data) {
    if (!data.leftOut) return "";
    const named = (data.leftOutTerms || []).map(quoted).join(", ");
    const more = data.leftOut > (data.leftOutTerms || []).length ? " and " + (data.leftOut - data.leftOutTerms.length).toLocaleString() + " more" : "";
    return "; left out " + plural(data.leftOut, "word that already holds", "words that already hold") + " the most tags a word can: "
      + named + more;
  }

  async function bulkDelete() {
    await bulkRun("trash", bulkTarget(), true, (data) => "Moved " + plural(data.changed, "word", "words") + " to the Trash");
  }

  // A bulk action runs on the server as a job: a tag on a quarter of a million words
  // takes seconds, and the page shows how many words it has gone through, under the list
  // or on the Trash page, whichever is open.
  // The key of the words each "select all" chose ({matches, trash}: a promise of it), taken
  // when they were chosen and sent with the action: other words, even as many, are refused.
  const selectionKeys = { matches: null, trash: null };
  // "All matches" was counted before a change this page made to a word (a delete, its
  // undo, a save, an add): its key is taken again, or the server refused the next bulk
  // action, blaming the change on somewhere else (round 15B).
  function ownChangeMade() {
    if (selection.all) takeSelectionKey("matches", { q: state.query, filterTag: state.tag });
  }

  // A tap on "Select all" sends the mark of the list it chose from (`shown`): words added,
  // changed or deleted since the list was read refuse it (409), and `changed` shows the
  // list again as it is now, nothing chosen. Chosen as the tap came, a word moved into
  // the Trash after the page showed it was purged with the others, unseen (round 26B #1).
  function takeSelectionKey(select, body, changed) {
    selectionKeys[select] = api("POST", "/api/bulk/selection", Object.assign({ select }, body))
      .then((data) => data.key)
      .catch((error) => {
        if (error.status !== 409 || !changed) return "";
        toast(error.message);
        changed();
        return null;
      });
  }

  async function bulkJob(path, body) {
    if (body && body.select && selectionKeys[body.select]) {
      const expectKey = await selectionKeys[body.select];
      // Refused as it was chosen: the list is shown again, and nothing is done.
      if (expectKey === null) throw new Error("Nothing was changed: the list changed since it was shown. Choose all once more.");
      body = Object.assign({}, body, { expectKey });
    }
    const prefix = $("trash-view").hidden ? "bulk" : "trash";
    const key = newJobKey();
    return runJob(key, "/api/bulk/" + path + "?" + query({ key }), body,
      $(prefix + "-progress-box"), $(prefix + "-progress"), $(prefix + "-progress-text"));
  }

  // One bulk action: one request, one transaction; the toast's Undo (or `u`) takes the
  // whole action back.
  let bulkRunning = false;
  async function bulkRun(path, body, clears, describe) {
    // One at a time: Enter twice in the tag box ran it twice, and the second's "0 words"
    // notice, without an Undo, replaced the first's (round 13B).
    if (selectedCount() === 0 || bulkRunning) return;
    bulkRunning = true;
    const buttons = [...$("bulk-bar").querySelectorAll("button")];
    for (const button of buttons) button.disabled = true;
    try {
      const data = await bulkJob(path, body);
      if (clears) { clearSelection(); $("words").focus(); }
      await reload();
      // Still all chosen: the words this action changed are the ones chosen now.
      if (selection.all) takeSelectionKey("matches", { q: state.query, filterTag: state.tag });
      loadTags();
      scheduleSync();
      const undo = data.changed > 0 ? bulkUndo(data.step, reload, "Undone: {n} as before") : null;
      toast(describe(data) + "." + (undo ? undoKeyHint() : ""), undo ? "Undo" : "", undo);
    } catch (error) {
      toast(error.message);
      // The matches changed meanwhile: list and count them as they are now, and take
      // those, as shown, as the ones chosen.
      if (body.select) {
        await reload();
        if (selection.all) takeSelectionKey("matches", { q: state.query, filterTag: state.tag });
      }
    } finally {
      bulkRunning = false;
      for (const button of buttons) button.disabled = false;
      showSelection();
    }
  }

  async function loadBulkTags() {
    try {
      const data = await api("GET", "/api/tags");
      $("bulk-tags").replaceChildren(...data.tags.slice(0, 200).map((entry) => { const option = element("option"); option.value = entry.tag; return option; }));
    } catch (error) { /* suggestions only */ }
  }

  $("view-cards").addEventListener("click", () => showView("cards", true));
  $("view-table").addEventListener("click", () => showView("table", true));
  $("bulk-all").addEventListener("click", selectAllMatches);
  $("bulk-clear").addEventListener("click", () => { clearSelection(); $("words").focus(); });
  $("bulk-add-tag").addEventListener("click", () => bulkTag(false));
  $("bulk-remove-tag").addEventListener("click", () => bulkTag(true));
  $("bulk-delete").addEventListener("click", bulkDelete);
  $("bulk-tag").addEventListener("focus", loadBulkTags, { once: true });
  $("bulk-tag").addEventListener("keydown", (event) => { if (event.key === "Enter") { event.preventDefault(); bulkTag(false); } });
  // x ticks the focused word; j and k still move from a ticked box; Esc clears the selection.
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || $("list-view").hidden) return;
    const target = event.target;
    const onPick = target.matches && target.matches(".word-pick");
    if (!onPick && target.closest("input, textarea, select, dialog")) return;
    const row = document.activeElement && document.activeElement.closest("#words .word");
    if (row && (event.key === "x" || event.key === "X")) {
      event.preventDefault();
      const box = row.querySelector(".word-pick");
      box.checked = !box.checked;
      rangeClick([...$("words").querySelectorAll(".word-pick")], box, event, selection);
      readSelection(box.checked);
    } else if (onPick && row && (event.key === "j" || event.key === "k")) {
      event.preventDefault();
      const next = event.key === "j" ? row.nextElementSibling : row.previousElementSibling;
      (next || row).querySelector(".word-open").focus();
    } else if (event.key === "Escape" && selectedCount() > 0) {
      clearSelection();
    }
  });
  // The Trash page's keys, as in the list: j and k move from entry to entry (onto its
  // checkbox), x ticks the focused entry (Shift+x ticks the range from the last one
  // ticked), Esc clears the selection.
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || $("trash-view").hidden) return;
    const target = event.target;
    const onPick = target.matches && target.matches(".trash-pick");
    if (!onPick && target.closest("input, textarea, select, dialog")) return;
    const boxes = [...document.querySelectorAll("#trash-list .trash-pick")];
    const entry = document.activeElement && document.activeElement.closest("#trash-list li");
    const key = event.key.toLowerCase();
    if ((key === "j" || key === "k") && boxes.length) {
      event.preventDefault();
      const at = entry ? boxes.indexOf(entry.querySelector(".trash-pick")) : -1;
      const next = at === -1 ? 0 : Math.min(boxes.length - 1, Math.max(0, at + (key === "j" ? 1 : -1)));
      boxes[next].focus();
      boxes[next].scrollIntoView({ block: "nearest" });
    } else if (key === "x" && entry) {
      event.preventDefault();
      const box = entry.querySelector(".trash-pick");
      box.checked = !box.checked;
      rangeClick(boxes, box, event, trash);
      if (!box.checked) trash.all = false;
      showTrashSelection();
    } else if (event.key === "Escape" && (trash.all || selectedTrash().length)) {
      trash.all = false;
      $("trash-all").checked = false;
      for (const box of boxes) box.checked = false;
      showTrashSelection();
    }
  });
  $("trash-back").addEventListener("click", () => { location.hash = ""; });
  $("trash-select-matches").addEventListener("click", () => {
    trash.all = true;
    takeSelectionKey("trash", { q: $("trash-search").value.trim(), shown: trash.mark }, async () => {
      trash.all = false;
      await loadTrash();
    });
    for (const box of document.querySelectorAll("#trash-list .trash-pick")) box.checked = true;
    showTrashSelection();
  });
  showView(storedView(), false);

  // ---- Screens and keys ----------------------------------------------------------

  function showScreen() {
    const settings = location.hash === "#settings";
    const studying = location.hash === "#study";
    const trashing = location.hash === "#/trash" || location.hash === "#trash";
    const wasSettings = !$("settings-view").hidden;
    const wasStudying = !$("study-view").hidden;
    const wasTrash = !$("trash-view").hidden;
    $("settings-view").hidden = !settings;
    $("study-view").hidden = !studying;
    $("trash-view").hidden = !trashing;
    $("list-view").hidden = settings || studying || trashing;
    if (studying && !wasStudying) openStudy();
    if (trashing && !wasTrash) openTrash();
    if (settings) { loadStatus(); $("settings-title").focus(); }
    // Back from Settings: a restore, an import or the CLI may have changed the words.
    if (!settings && !studying && !trashing && (wasSettings || wasStudying || wasTrash)) { reload(); loadTags(); }
  }

  let searchTimer = null;
  $("search").addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => {
      const value = $("search").value.trim();
      if (value === state.query) return;
      state.query = value;
      showSort();
      if (location.hash === "#settings") location.hash = "";
      writeAddress(false);
      reload();
    }, 120);
  });
  $("search").addEventListener("keydown", (event) => {
    if (event.key === "Escape" && $("search").value) { $("search").value = ""; $("search").dispatchEvent(new Event("input")); }
    if (event.key === "Enter") { event.preventDefault(); const first = $("words").querySelector(".word-open"); if (first) first.focus(); }
  });
  $("tag-filter").addEventListener("change", () => { state.tag = $("tag-filter").value; writeAddress(true); reload(); });
  $("sort").addEventListener("change", () => { state.sort = $("sort").value; writeAddress(true); reload(); });
  window.addEventListener("popstate", () => { readAddress(); reload(); });
  $("add-button").addEventListener("click", () => openEditor(null));
  $("settings-button").addEventListener("click", () => { location.hash = "#settings"; });
  $("back-button").addEventListener("click", () => { location.hash = ""; });
  $("settings-title").tabIndex = -1;
  window.addEventListener("hashchange", showScreen);

  $("word-form").addEventListener("submit", (event) => { event.preventDefault(); saveWord(); });
  $("word-form").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); saveWord(); }
  });
  $("editor-cancel").addEventListener("click", leaveEditor);
  $("editor").addEventListener("cancel", (event) => { event.preventDefault(); leaveEditor(); });
  // Esc is taken here, before the dialog's own cancel: Chromium lets a page prevent a
  // dialog's cancel only once per user activation, so a second Esc closed the editor and
  // lost the typing whatever "Discard your changes?" was answered (round 13B).
  $("editor").addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !event.isComposing) { event.preventDefault(); leaveEditor(); }
  });
  // A close the page did not make (a phone's Back button, a cancel the browser would not
  // let the page prevent) with changes typed opens the editor again, as it was, and asks.
  $("editor").addEventListener("close", () => {
    if (editorClosing) { editorClosing = false; return; }
    if (editorValues() === editorSnapshot) return;
    $("editor").showModal();
    leaveEditor();
  });
  window.addEventListener("beforeunload", (event) => {
    if (editorChanged() || changesRunning > 0) { event.preventDefault(); event.returnValue = ""; }
  });
  $("viewer-edit").addEventListener("click", editViewed);
  $("keys-close").addEventListener("click", () => $("keys-help").close());
  $("viewer-close").addEventListener("click", () => $("viewer").close());
  $("viewer").addEventListener("close", () => { if (!$("editor").open) focusWord(state.viewing); });
  $("viewer-delete").addEventListener("click", () => {
    const word = state.viewing;
    $("viewer").close();
    if (word) deleteWord(word);
  });
  $("viewer").addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "e" || event.key === "E") { event.preventDefault(); editViewed(); }
  });
  $("editor-delete").addEventListener("click", () => {
    const word = state.editing;
    closeEditor();
    if (word) deleteWord(word);
  });
  $("f-term").addEventListener("input", checkDuplicates);

  $("remote-form").addEventListener("submit", saveRemote);
  for (const type of ["input", "change"]) $("remote-form").addEventListener(type, () => { state.remoteEdited = true; });
  $("remote-kind").addEventListener("change", showRemoteKind);
  $("gdrive-space").addEventListener("change", showRemoteKind);
  $("sync-now").addEventListener("click", () => syncNow(true));
  $("empty-trash").addEventListener("click", emptyTrash);
  let trashTimer = null;
  $("trash-search").addEventListener("input", () => { clearTimeout(trashTimer); trashTimer = setTimeout(() => loadTrash(), 150); });
  $("trash-more").addEventListener("click", () => loadTrash(true));
  $("trash-all").addEventListener("change", () => {
    for (const box of document.querySelectorAll("#trash-list .trash-pick")) box.checked = $("trash-all").checked;
    if (!$("trash-all").checked) trash.all = false;
    showTrashSelection();
  });
  $("trash-restore-selected").addEventListener("click", () => trashBulk(false));
  $("trash-purge-selected").addEventListener("click", () => trashBulk(true));
  $("trash-show-hidden").addEventListener("click", () => { trash.showHidden = true; loadTrash(); });
  $("backup-check").addEventListener("click", checkBackup);
  $("restore-confirm").addEventListener("click", confirmRestore);
  $("restore-cancel").addEventListener("click", () => { $("restore-preview").hidden = true; });
  $("backup-replace").addEventListener("change", () => { if (!$("restore-preview").hidden) checkBackup(); });
  for (const button of document.querySelectorAll("button.download")) button.addEventListener("click", () => download(button));
  $("backup-file").addEventListener("change", () => { delete uploadKeys["backup-file"]; $("restore-preview").hidden = true; $("backup-error").textContent = ""; });
  $("restore-undo").addEventListener("click", undoRestore);
  $("copies-check").addEventListener("click", checkConflictCopy);
  $("editor-restore-save").addEventListener("click", restoreAndSave);
  $("copies-take").addEventListener("click", takeInConflictCopy);
  $("import-button").addEventListener("click", importFile);
  $("import-undo").addEventListener("click", undoImport);
  $("import-file").addEventListener("change", () => {
    delete uploadKeys["import-file"]; importColumns = null; importMappingProblem = ""; $("import-result").textContent = ""; previewImport();
  });
  $("import-skip").addEventListener("change", () => previewImport(true));

  document.addEventListener("keydown", (event) => {
    const typing = event.target.closest("input, textarea, select, dialog");
    if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "/") { event.preventDefault(); location.hash = ""; $("search").focus(); }
    if (event.key === "n" || event.key === "N") { event.preventDefault(); openEditor(null); }
    if (event.key === "?") { event.preventDefault(); $("keys-help").showModal(); $("keys-close").focus(); }
    // The list: j and k move through the words, e and d edit or delete the focused one
    // (Enter opens it: it is a button).
    const words = [...$("words").querySelectorAll(".word-open")];
    if (!$("list-view").hidden && (event.key === "j" || event.key === "k") && words.length) {
      event.preventDefault();
      const at = words.indexOf(document.activeElement);
      const next = at === -1 ? 0 : Math.min(words.length - 1, Math.max(0, at + (event.key === "j" ? 1 : -1)));
      words[next].focus();
      words[next].scrollIntoView({ block: "nearest" });
    }
    const focused = document.activeElement && document.activeElement.closest("#words .word");
    if (focused && focused.word && (event.key === "e" || event.key === "E")) { event.preventDefault(); openEditor(focused.word); }
    // Not a held key's repeats: they moved a run of words to the Trash, Undo taking back
    // only the last (round 13B).
    if (focused && focused.word && (event.key === "d" || event.key === "D")) { event.preventDefault(); if (!event.repeat) deleteWord(focused.word); }
    // The toast's Undo from anywhere on the page: `u`.
    if ((event.key === "u" || event.key === "U") && !$("toast").hidden && !$("toast-action").hidden) {
      event.preventDefault();
      $("toast-action").click();
    }
  });

  new IntersectionObserver((entries) => {
    if (entries.some((entry) => entry.isIntersecting) && state.hasMore && state.loadingGeneration === -1) loadMore(false);
  }, { rootMargin: "600px" }).observe($("more"));

  // Product notes: "The app now syncs when you open it." Then every few minutes and
  // whenever the tab comes back; words added elsewhere (the CLI too) show up then.
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible") return;
    if (Date.now() - state.lastSync > 30000) syncNow(false);
    // A search is drawn again too (its list and count missed a word added in a terminal
    // meanwhile: round 13B); a list scrolled down is left where it is.
    if (!$("editor").open && window.scrollY < 200) reload();
    loadConflicts();
    // Back on the Study page with no card shown: a word may be due by now.
    if (studyVisible() && !study.card) loadStudyCard();
  });
  setInterval(() => { if (document.visibilityState === "visible") syncNow(false); }, SYNC_EVERY_MS);

  readAddress();
  showScreen();
  reload();
  loadTags();
  showSignInOutcome();
  syncNow(false);
  loadConflicts();
})();
