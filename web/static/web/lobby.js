// The create-table form: the seat the person chooses for themselves is not offered to a bot
// (its bot choice is cleared and disabled), nor are seats the chosen rules do not have.
// Without this script the server refuses the same choices, next to the field.
(function () {
  "use strict";
  const form = document.getElementById("create-table");
  const seatsData = document.getElementById("preset-seats");
  if (!form || !seatsData) return;
  const seatCounts = JSON.parse(seatsData.textContent);
  const mySeat = form.elements.namedItem("my_seat");
  const botSelects = Array.from(form.querySelectorAll("select[name^=seat_]"));

  function chosenPreset() {
    const checked = form.querySelector("input[name=preset]:checked");
    return checked ? checked.value : "classic";
  }

  function update() {
    const seats = seatCounts[chosenPreset()] || 3;
    if (mySeat.value !== "none" && Number(mySeat.value) >= seats) mySeat.value = "0";
    const mine = mySeat.value;
    for (const option of mySeat.options) {
      option.disabled = option.value !== "none" && Number(option.value) >= seats;
    }
    botSelects.forEach(function (select) {
      const seat = Number(select.name.slice("seat_".length));
      const taken = String(seat) === mine;
      const unused = seat >= seats;
      if (taken || unused) select.value = "";
      select.disabled = taken || unused;
      const first = select.options[0];
      first.textContent = taken ? "you sit here" : unused ? "not in these rules" : "open for anyone";
    });
  }

  form.addEventListener("change", function (event) {
    const name = event.target.name;
    if (name === "preset" || name === "my_seat") update();
  });
  update();
})();
