/// The files of the web app, compiled in as text so `midiccio` is one self-contained
/// program (no resource bundle to find at run time, nothing fetched from elsewhere).
enum AppAssets {
    /// The page, with this session's CSRF token in a meta tag. It holds no user text:
    /// the script fetches words as JSON and inserts them with `textContent`.
    static func page(csrfToken: String) -> String {
        // The token is hex made by SecurityPolicy.randomToken(), so it needs no escaping.
        pageTemplate.replacingOccurrences(of: "{{csrf-token}}", with: csrfToken)
    }

    private static let pageTemplate = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <meta name="csrf-token" content="{{csrf-token}}">
        <title>MiDiccio</title>
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="/app.css">
        <script src="/app.js" defer></script>
        </head>
        <body>
        <a class="skip" href="#words">Skip to your words</a>
        <header class="bar">
          <a class="brand" href="#" aria-label="MiDiccio, your words"><span class="logo" aria-hidden="true">M</span><span class="brand-name">MiDiccio</span></a>
          <div class="search">
            <label for="search" class="visually-hidden">Search your words</label>
            <input id="search" type="search" placeholder="Search your words" autocomplete="off" spellcheck="false" enterkeyhint="search">
          </div>
          <button id="add-button" class="primary" type="button" title="Add a word (N)">+ Add word</button>
          <button id="settings-button" class="quiet" type="button" title="Settings, Trash, backup and sync">Settings</button>
        </header>

        <main id="list-view">
          <div class="filters">
            <label class="filter">Tag
              <select id="tag-filter"><option value="">All words</option></select>
            </label>
            <label class="filter">Sort
              <select id="sort">
                <option value="updated">Recently changed</option>
                <option value="created">Recently added</option>
                <option value="term">A to Z</option>
              </select>
            </label>
            <span id="count" class="count" aria-live="polite"></span>
            <span id="sync-state" class="sync-state" role="status"></span>
          </div>
          <ul id="words" class="words" aria-label="Your words" tabindex="-1"></ul>
          <div id="empty" class="empty" hidden>
            <p class="empty-title" id="empty-title">Your word list is empty</p>
            <p id="empty-text">Add the first word you want to remember.</p>
          </div>
          <div id="more" class="more" aria-hidden="true"></div>
        </main>

        <section id="settings-view" class="settings" hidden aria-labelledby="settings-title">
          <div class="settings-head">
            <button id="back-button" class="quiet" type="button">&larr; Words</button>
            <h2 id="settings-title">Settings</h2>
          </div>

          <section class="card" aria-labelledby="sync-title">
            <h3 id="sync-title">Sync</h3>
            <p id="sync-summary" class="muted"></p>
            <form id="remote-form" class="inline-form">
              <label for="remote-kind">Sync through</label>
              <select id="remote-kind">
                <option value="folder">a folder your cloud keeps in sync</option>
                <option value="webdav">a WebDAV server (Nextcloud, ownCloud, a NAS)</option>
              </select>
              <div id="remote-folder-fields">
                <label for="remote-folder">Sync folder</label>
                <input id="remote-folder" autocomplete="off" spellcheck="false" placeholder="/home/you/Dropbox/MiDiccio" aria-describedby="remote-error">
              </div>
              <div id="remote-webdav-fields" hidden>
                <label for="remote-url">Server folder address</label>
                <input id="remote-url" type="url" autocomplete="off" spellcheck="false" placeholder="https://cloud.example.com/remote.php/dav/files/you/MiDiccio" aria-describedby="remote-error">
                <label for="remote-user">User name</label>
                <input id="remote-user" autocomplete="username" spellcheck="false">
                <label for="remote-password">Password (kept on this computer only; leave empty to keep the saved one)</label>
                <input id="remote-password" type="password" autocomplete="current-password">
              </div>
              <div class="row">
                <button type="submit">Save</button>
              </div>
              <p class="field-error" id="remote-error"></p>
            </form>
            <div class="row">
              <button id="sync-now" type="button">Sync now</button>
              <span id="sync-result" class="muted" role="status"></span>
            </div>
            <dl id="sync-details" class="details"></dl>
            <ul id="devices" class="devices" aria-label="Devices"></ul>
          </section>

          <section class="card" aria-labelledby="trash-title">
            <h3 id="trash-title">Trash</h3>
            <p id="trash-summary" class="muted"></p>
            <ul id="trash-list" class="trash-list" aria-label="Words in the Trash"></ul>
            <button id="empty-trash" class="danger" type="button" hidden>Empty Trash</button>
          </section>

          <section class="card" aria-labelledby="backup-title">
            <h3 id="backup-title">Backup</h3>
            <p class="muted">A backup is one file with every word, the Trash included.</p>
            <p><a class="button" id="backup-download" href="/api/backup" download>Download a backup</a></p>
            <label for="backup-file">Restore from a backup file</label>
            <input id="backup-file" type="file" accept=".json,application/json" aria-describedby="backup-error">
            <label class="check"><input id="backup-replace" type="checkbox"> Replace: make the library equal to the backup (words not in it go to the Trash)</label>
            <div class="row"><button id="backup-check" type="button">Check the file</button></div>
            <div id="restore-preview" class="preview" hidden>
              <p id="restore-report"></p>
              <div class="row">
                <button id="restore-confirm" class="primary" type="button">Restore</button>
                <button id="restore-cancel" type="button">Cancel</button>
              </div>
            </div>
            <p class="field-error" id="backup-error"></p>
            <p id="restore-done" role="status"></p>
            <button id="restore-undo" type="button" hidden>Undo restore</button>
          </section>

          <section class="card" aria-labelledby="transfer-title">
            <h3 id="transfer-title">Import and export</h3>
            <p class="muted">CSV or TSV with a header row naming its columns (term, meaning, reading, examples, notes, tags), or Anki's &ldquo;Notes in Plain Text&rdquo; export.</p>
            <label for="import-file">Import words from a file</label>
            <input id="import-file" type="file" accept=".csv,.tsv,.txt,text/csv,text/plain" aria-describedby="import-error">
            <label class="check"><input id="import-skip" type="checkbox"> Skip words already in the library</label>
            <div class="row"><button id="import-button" type="button">Import</button></div>
            <p class="field-error" id="import-error"></p>
            <p id="import-result" role="status"></p>
            <p class="row"><a class="button" href="/api/export?format=csv" download>Export CSV</a><a class="button" href="/api/export?format=tsv" download>Export TSV</a></p>
          </section>
        </section>

        <dialog id="editor" aria-labelledby="editor-title">
          <form id="word-form" novalidate>
            <h2 id="editor-title">Add a word</h2>
            <div class="field">
              <label for="f-term">Word</label>
              <input id="f-term" name="term" autocomplete="off" spellcheck="false" aria-describedby="e-term w-term">
              <p class="field-error" id="e-term"></p>
              <p class="warning" id="w-term"></p>
            </div>
            <div class="field">
              <label for="f-reading">Reading <span class="hint">pronunciation, optional</span></label>
              <input id="f-reading" name="reading" autocomplete="off" spellcheck="false" aria-describedby="e-reading">
              <p class="field-error" id="e-reading"></p>
            </div>
            <div class="field">
              <label for="f-meaning">Meaning</label>
              <textarea id="f-meaning" name="meaning" rows="2" aria-describedby="e-meaning"></textarea>
              <p class="field-error" id="e-meaning"></p>
            </div>
            <div class="field">
              <label for="f-examples">Examples <span class="hint">one per line</span></label>
              <textarea id="f-examples" name="examples" rows="3" aria-describedby="e-examples"></textarea>
              <p class="field-error" id="e-examples"></p>
            </div>
            <div class="field">
              <label for="f-notes">Notes</label>
              <textarea id="f-notes" name="notes" rows="2" aria-describedby="e-notes"></textarea>
              <p class="field-error" id="e-notes"></p>
            </div>
            <div class="field">
              <label for="f-tags">Tags <span class="hint">separated by spaces</span></label>
              <input id="f-tags" name="tags" autocomplete="off" spellcheck="false" aria-describedby="e-tags">
              <p class="field-error" id="e-tags"></p>
            </div>
            <p class="field-error" id="e-form"></p>
            <div class="actions">
              <button id="editor-delete" class="danger quiet" type="button" hidden>Move to Trash</button>
              <span class="spacer"></span>
              <button id="editor-cancel" type="button">Cancel</button>
              <button id="editor-save" class="primary" type="submit">Save</button>
            </div>
            <p class="hint keys">Enter saves &middot; Ctrl+Enter saves from a text box &middot; Esc cancels</p>
          </form>
        </dialog>

        <div id="toast" class="toast" role="status" aria-live="polite" hidden>
          <span id="toast-text"></span>
          <button id="toast-action" type="button" hidden>Undo</button>
        </div>
        </body>
        </html>
        """#
}
