extension AppAssets {
    /// The style sheet: system fonts, light and dark themes from the system setting,
    /// one column that works from phone width up.
    static let style = #"""
        :root {
          --bg: #f6f4ef; --surface: #ffffff; --text: #1f2328; --muted: #667085; --line: #e4e0d8;
          --accent: #2f6f5e; --accent-text: #ffffff; --accent-soft: #e3f0ea; --danger: #b42318;
          --warning: #8a5a00; --tag: #efe9dc; --shadow: 0 1px 2px rgba(0,0,0,.06), 0 2px 8px rgba(0,0,0,.04);
          --radius: 12px;
          color-scheme: light dark;
        }
        @media (prefers-color-scheme: dark) {
          :root {
            --bg: #16181c; --surface: #1f2227; --text: #e8e6e3; --muted: #9aa1ab; --line: #30343b;
            --accent: #6cc3a6; --accent-text: #0d1f19; --accent-soft: #1d3530; --danger: #ff8a80;
            --warning: #f2c46d; --tag: #2c3036; --shadow: none;
          }
        }
        * { box-sizing: border-box; }
        html { -webkit-text-size-adjust: 100%; }
        body { margin: 0; background: var(--bg); color: var(--text);
          font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Liberation Sans", sans-serif; }
        [hidden] { display: none !important; }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        .skip { position: absolute; left: -999px; top: 8px; background: var(--surface); padding: 8px 12px; border-radius: 8px; z-index: 10; }
        .skip:focus { left: 8px; }
        :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }

        button, .button, select, input, textarea { font: inherit; color: inherit; }
        button, .button { display: inline-flex; align-items: center; gap: 6px; border: 1px solid var(--line); background: var(--surface);
          border-radius: 999px; padding: 7px 16px; cursor: pointer; text-decoration: none; min-height: 40px; }
        button:hover, .button:hover { border-color: var(--accent); }
        button.primary { background: var(--accent); color: var(--accent-text); border-color: var(--accent); font-weight: 600; }
        button.quiet { border-color: transparent; background: transparent; }
        button.quiet:hover { background: var(--accent-soft); }
        button.danger { color: var(--danger); }
        button:disabled { opacity: .55; cursor: default; }
        input, textarea, select { background: var(--surface); border: 1px solid var(--line); border-radius: 10px; padding: 8px 12px; width: 100%; }
        input[type=checkbox] { width: auto; }
        input[type=file] { border-style: dashed; }
        textarea { resize: vertical; }
        input:focus, textarea:focus, select:focus { border-color: var(--accent); outline: none; box-shadow: 0 0 0 3px var(--accent-soft); }
        [aria-invalid=true] { border-color: var(--danger); }

        .bar { position: sticky; top: 0; z-index: 5; display: flex; align-items: center; gap: 12px; padding: 12px max(16px, calc(50% - 380px));
          background: color-mix(in srgb, var(--bg) 88%, transparent); backdrop-filter: blur(8px); border-bottom: 1px solid var(--line); }
        .brand { display: flex; align-items: center; gap: 8px; font-weight: 700; font-size: 1.15rem; color: var(--text); text-decoration: none; }
        .logo { display: inline-grid; place-items: center; width: 32px; height: 32px; border-radius: 10px; background: var(--accent); color: var(--accent-text);
          font-weight: 800; }
        .search { flex: 1; }
        .search input { border-radius: 999px; padding-left: 16px; }

        main, .settings { max-width: 760px; margin: 0 auto; padding: 12px 16px 96px; }
        .filters { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 16px; margin: 4px 0 12px; color: var(--muted); font-size: .92rem; }
        .filter { display: flex; align-items: center; gap: 6px; }
        .filter select { width: auto; padding: 4px 8px; }
        .count { margin-left: auto; }
        .sync-state.problem { color: var(--warning); }

        .words { list-style: none; margin: 0; padding: 0; display: grid; gap: 10px; }
        .word { display: flex; align-items: stretch; background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow); }
        .word-open { flex: 1; display: block; text-align: left; border: 0; border-radius: var(--radius); padding: 12px 16px; min-width: 0; background: transparent; }
        .word-open:hover { background: var(--accent-soft); }
        .word-head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 10px; }
        .term { font-weight: 650; font-size: 1.1rem; overflow-wrap: anywhere; }
        .reading { color: var(--muted); }
        .meaning { display: block; margin-top: 2px; overflow-wrap: anywhere; }
        .example { display: block; margin-top: 4px; color: var(--muted); font-style: italic; overflow-wrap: anywhere; }
        .tags { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 8px; }
        .tag { background: var(--tag); border-radius: 999px; padding: 1px 10px; font-size: .82rem; }
        .word .delete { align-self: center; margin-right: 8px; color: var(--muted); border-color: transparent; background: transparent; font-size: .88rem; }
        .word .delete:hover, .word .delete:focus-visible { color: var(--danger); }
        .empty { text-align: center; color: var(--muted); padding: 48px 16px; }
        .empty-title { font-size: 1.2rem; color: var(--text); font-weight: 600; margin-bottom: 4px; }
        .more { height: 1px; }

        dialog { border: 0; border-radius: 18px; padding: 0; width: min(560px, calc(100vw - 24px)); max-height: calc(100vh - 24px);
          background: var(--surface); color: var(--text); box-shadow: 0 20px 60px rgba(0,0,0,.3); }
        dialog::backdrop { background: rgba(20, 22, 26, .45); }
        dialog form { padding: 20px 22px 16px; }
        dialog h2 { margin: 0 0 12px; font-size: 1.25rem; }
        .field { margin-bottom: 10px; }
        .field label, .card > label, .inline-form label { display: block; font-weight: 600; font-size: .92rem; margin-bottom: 4px; }
        .hint { color: var(--muted); font-weight: 400; font-size: .85rem; }
        .keys { margin: 8px 0 0; text-align: right; }
        .field-error { color: var(--danger); font-size: .88rem; margin: 4px 0 0; }
        .field-error:empty, .warning:empty { display: none; }
        .warning { color: var(--warning); font-size: .88rem; margin: 4px 0 0; }
        .actions { display: flex; align-items: center; gap: 8px; margin-top: 14px; }
        .spacer { flex: 1; }

        .settings-head { display: flex; align-items: center; gap: 8px; margin: 4px 0 8px; }
        .settings-head h2 { margin: 0; font-size: 1.3rem; }
        .card { background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); box-shadow: var(--shadow); padding: 16px 18px; margin-bottom: 14px; }
        .card h3 { margin: 0 0 6px; font-size: 1.1rem; }
        .muted { color: var(--muted); }
        .row { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin: 8px 0; }
        .row input { flex: 1; min-width: 200px; }
        .check { display: flex; align-items: flex-start; gap: 8px; margin: 8px 0; font-weight: 400; }
        .check input { margin-top: 4px; }
        .card > .check { display: flex; font-weight: 400; }
        /* Headings get focus only so screen readers announce the new screen. */
        h2[tabindex="-1"]:focus { outline: none; }
        .details { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 8px 0; }
        .details dt { color: var(--muted); }
        .details dd { margin: 0; overflow-wrap: anywhere; }
        .devices, .trash-list { list-style: none; padding: 0; margin: 8px 0; display: grid; gap: 8px; }
        .devices li, .trash-list li { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 12px; padding: 8px 12px; border: 1px solid var(--line); border-radius: 10px; }
        .trash-list .trash-text { flex: 1; min-width: 180px; }
        .trash-list .term { font-size: 1rem; }
        .agrees { color: var(--accent); }
        .differs { color: var(--warning); }
        .preview { background: var(--accent-soft); border-radius: 10px; padding: 8px 12px; margin: 8px 0; }

        .toast { position: fixed; left: 50%; bottom: 20px; transform: translateX(-50%); display: flex; align-items: center; gap: 12px;
          background: var(--text); color: var(--bg); padding: 10px 12px 10px 18px; border-radius: 999px; box-shadow: 0 8px 24px rgba(0,0,0,.25);
          max-width: calc(100vw - 24px); z-index: 20; }
        .toast button { background: transparent; color: inherit; border-color: color-mix(in srgb, var(--bg) 50%, transparent); min-height: 34px; padding: 4px 14px; font-weight: 600; }

        @media (max-width: 600px) {
          .bar { flex-wrap: wrap; gap: 8px; padding: 10px 12px; }
          .search { order: 3; flex-basis: 100%; }
          .brand-name { display: none; }
          #add-button { margin-left: auto; }
          main, .settings { padding: 8px 10px 96px; }
          .count { margin-left: 0; }
          .word .delete { padding: 6px 10px; }
        }
        """#
}
