// The seating sheet's Print button: shown only where a script runs (the hint otherwise).
const button = document.querySelector("[data-action=print-now]");
if (button) {
  button.hidden = false;
  document.querySelector(".print-hint")?.remove();
  button.addEventListener("click", () => window.print());
}
