// An in-person table's result page (docs/web.md "The room pages"). The page is whole without
// this script. With it, while the round is played the page follows the tournament's live
// stream and loads itself again when this table's result changes (another player entered
// or confirmed it, an organiser settled it, the round moved on), unless scores are being
// typed or a form is being sent.

import { followStream } from "./live_stream.js";

const main = document.querySelector("main[data-testid=table-result]");

// Once a form of the page is sent, the answer to it is the page to show: a change the
// sending itself brought must not load the page again over it.
let sending = false;
document.addEventListener("submit", () => {
  sending = true;
});

function typing() {
  return [...main.querySelectorAll("input[name^=score]")].some(
    (field) => field.value !== field.defaultValue,
  );
}

if (main?.dataset.open !== undefined) {
  const query = new URLSearchParams({ after: main.dataset.version });
  followStream(`/api/v1/tournaments/${main.dataset.tournamentId}/live?${query}`, {
    onChange: (data, source) => {
      // Another round's tables: this one's round is over.
      const table = data.tables.find((shown) => shown.code === main.dataset.code);
      const status = table ? table.result_status : "closed";
      if (status !== main.dataset.status && !typing() && !sending) {
        source.close();
        window.location.reload();
      }
    },
    onFallback: () => {},
  });
}
