/**
 * The Studio's one HTML page. Its script and style are the esbuild bundle of app/ (same origin:
 * the Content-Security-Policy allows nothing inline). Every control has a label; the sections are
 * landmarks with headings, so keyboard and screen-reader users can move between them. The nonce
 * (base64, never HTML-special) lets the editor's own <style> elements through the CSP.
 */
export function studioHtml(styleNonce: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="style-nonce" content="${styleNonce}" />
    <title>MoveSpec Studio</title>
    <!-- An empty icon: a browser asks for /favicon.ico otherwise, and logs its 404. -->
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="/studio/app.css" />
    <script type="module" src="/studio/app.js"></script>
  </head>
  <body>
    <a class="skip" href="#editor-panel">Skip to the editor</a>
    <header class="top">
      <h1>MoveSpec Studio</h1>
      <p id="who" class="who" aria-live="polite">Not signed in</p>
      <button id="sign-out" type="button" hidden>Sign out</button>
    </header>

    <main>
      <section id="sign-in" aria-labelledby="sign-in-title" class="card narrow">
        <h2 id="sign-in-title">Sign in</h2>
        <form id="sign-in-form">
          <label for="credential">API key, or <code>key_id:key_secret</code></label>
          <input id="credential" name="credential" type="password" autocomplete="off" required
            spellcheck="false" />
          <p class="hint">The key stays in this tab's memory to refresh short-lived access tokens;
            it is never stored. <code>npm start</code> prints a development key.</p>
          <button type="submit">Sign in</button>
          <p id="sign-in-error" class="error" role="alert"></p>
        </form>
      </section>

      <div id="workspace" class="workspace" hidden>
        <nav id="library" aria-labelledby="library-title" class="card">
          <h2 id="library-title">MoveSpecs</h2>
          <h3 id="mine-title">Your MoveSpecs</h3>
          <form id="mine-form" role="search" class="inline" aria-labelledby="mine-title">
            <label for="mine-q">Find yours</label>
            <input id="mine-q" type="search" maxlength="256" />
            <label for="mine-sort" class="visually-hidden">Order yours by</label>
            <select id="mine-sort">
              <option value="recent">last edited</option>
              <option value="name">A to Z</option>
            </select>
            <button type="submit">Find</button>
          </form>
          <ul id="mine" class="list" aria-labelledby="mine-title" aria-live="polite"></ul>
          <p id="mine-more" class="hint"></p>
          <details id="new-movespec">
            <summary>New MoveSpec</summary>
            <form id="create-form">
              <label for="new-name">Name</label>
              <input id="new-name" required maxlength="120" />
              <label for="new-example">Start from</label>
              <select id="new-example"></select>
              <label for="new-visibility">Visibility (fixed once created)</label>
              <select id="new-visibility">
                <option value="private">private: this project only</option>
                <option value="public">public: listed in the catalogue</option>
              </select>
              <button type="submit">Create</button>
            </form>
          </details>
          <form id="open-form" class="inline">
            <label for="open-id">Open by id</label>
            <input id="open-id" required spellcheck="false" />
            <button type="submit">Open</button>
          </form>
          <h3>Public catalogue</h3>
          <form id="search-form" role="search" class="inline">
            <label for="search-q">Search</label>
            <input id="search-q" type="search" maxlength="256" />
            <label for="search-sort" class="visually-hidden">Sort</label>
            <select id="search-sort">
              <option value="recent">recent</option>
              <option value="stars">stars</option>
              <option value="name">name</option>
            </select>
            <button type="submit">Search</button>
          </form>
          <ul id="catalogue" class="list" aria-live="polite"></ul>
        </nav>

        <section id="editor-panel" aria-labelledby="spec-title" class="card" tabindex="-1">
          <h2 id="spec-title">No MoveSpec open</h2>
          <p class="meta"><span id="spec-meta"></span>
            <button id="copy-id" class="small" type="button" hidden>Copy id</button></p>
          <div class="toolbar" role="toolbar" aria-label="MoveSpec actions">
            <button id="save" type="button" disabled title="Ctrl+S">Save draft</button>
            <button id="create-version" type="button" disabled>Create version</button>
            <label for="versions" class="visually-hidden">Version</label>
            <select id="versions" disabled></select>
            <button id="release" type="button" disabled>Release</button>
          </div>
          <p id="editor-status" class="status" role="status"></p>
          <div id="conflict" class="conflict" role="group" aria-labelledby="conflict-text" hidden>
            <p id="conflict-text">Someone or something else (another tab, another person, a
              script) saved this draft after you opened it. Load theirs (your text stays one undo
              away: Ctrl+Z), or overwrite it with yours.</p>
            <button id="conflict-load" type="button">Load the latest draft</button>
            <button id="conflict-overwrite" type="button">Overwrite with my text</button>
          </div>
          <div id="editor-label" class="visually-hidden">MoveSpec YAML</div>
          <div id="editor" class="editor"></div>
          <h3 class="issues-title">Problems</h3>
          <ul id="issues" class="issues" aria-live="polite"></ul>
        </section>

        <section id="bench" aria-labelledby="bench-title" class="card">
          <h2 id="bench-title">Test bench</h2>
          <form id="bench-form" class="bench-form">
            <label for="recording">Recording</label>
            <select id="recording"></select>
            <label for="upload">or upload a <code>.jsonl</code> / <code>.jsonl.gz</code></label>
            <input id="upload" type="file" accept=".jsonl,.gz,.jsonl.gz,application/gzip" />
            <button id="run" type="submit" disabled title="Ctrl+Enter">Run (Ctrl+Enter)</button>
          </form>
          <p class="video-open"><label for="video-file">or read a video (MP4, WebM), or drop one on the page:</label>
            <input id="video-file" type="file" accept="video/mp4,video/webm,video/*,.mp4,.webm" disabled /></p>
          <div id="video-reading" class="video-reading" hidden>
            <video id="video-view" muted playsinline aria-label="The video being read" hidden></video>
            <p id="video-status" class="status" role="status"></p>
            <button id="video-cancel" type="button" hidden>Cancel</button>
          </div>
          <p class="source"><span id="bench-source" aria-live="polite"></span>
            <button id="clear-upload" class="small" type="button" hidden>Use the bundled one</button></p>
          <p id="bench-status" class="status" role="status"></p>
          <section id="labelling" class="labelling" aria-labelledby="labelling-title" hidden>
            <h3 id="labelling-title">Labels</h3>
            <p class="hint">Drag on the timeline to mark a repetition, click a mark to remove it,
              click elsewhere to move the time cursor. It spans the plot's window.</p>
            <div id="timeline" class="timeline" role="group"
              aria-label="Repetition marks over time: drag to mark one"></div>
            <p id="timeline-axis" class="timeline-axis" aria-hidden="true"><span id="timeline-from"></span><span id="timeline-to"></span></p>
            <div class="toolbar">
              <label for="expected">Expected count</label>
              <input id="expected" type="number" min="0" step="1" inputmode="numeric" />
              <button id="labels-from-run" class="small" type="button">Mark the counted repetitions</button>
              <button id="labels-clear" class="small" type="button">Clear the marks</button>
              <button id="download-recording" type="button">Download recording</button>
              <button id="download-manifest" type="button">Download manifest</button>
            </div>
            <p id="labels-status" class="status" role="status"></p>
            <div class="toolbar">
              <button id="fit" type="button" disabled
                title="Chooses the numbers the MoveSpec's fit: block frees, on the recordings labelled in this page">Fit</button>
              <button id="fit-apply" type="button" hidden>Put the fitted MoveSpec in the editor</button>
            </div>
            <p id="fit-status" class="status" role="status"></p>
            <div id="fit-result" class="fit-result" hidden></div>
          </section>
          <div id="result" hidden>
            <p id="result-caption" class="meta"></p>
            <p class="count"><span id="count">0</span> <span id="count-label">repetitions</span></p>
            <ul id="warnings" class="warnings" aria-label="Form warnings"></ul>
            <div id="plot" class="plot" role="group" aria-label="Signals over time"></div>
            <div class="scrub">
              <label for="scrub">Time <output id="scrub-time" for="scrub">0.00 s</output></label>
              <input id="scrub" type="range" min="0" max="0" step="1" value="0" />
              <canvas id="skeleton" width="320" height="240" aria-label="Pose at the chosen time"></canvas>
            </div>
            <table id="reps" class="reps">
              <caption>Repetitions</caption>
              <thead></thead>
              <tbody></tbody>
            </table>
          </div>
        </section>

        <section id="camera" aria-labelledby="camera-title" class="card">
          <h2 id="camera-title">Live camera</h2>
          <p class="hint">Counts you live with the open MoveSpec: the pose model (MoveNet Lightning)
            runs in this page, only keypoints go to the service. Stand back so that your whole body
            is in view.</p>
          <button id="camera-toggle" type="button" disabled>Start camera</button>
          <p id="camera-status" class="status" role="status"></p>
          <div class="live" id="live" hidden>
            <div class="stage">
              <video id="video" muted playsinline aria-label="Camera"></video>
              <canvas id="overlay" aria-hidden="true"></canvas>
            </div>
            <div>
              <p class="count"><span id="live-count">0</span> repetitions</p>
              <p id="live-phase" class="meta"></p>
              <ul id="live-events" class="warnings" aria-label="Live events" aria-live="polite"></ul>
            </div>
          </div>
        </section>
      </div>
    </main>
  </body>
</html>
`;
}
