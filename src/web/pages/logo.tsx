/** The app's mark (the favicon's drawing), beside its name in the header and the viewer bar. */
export function Logo() {
  return (
    <svg class="logo" viewBox="0 0 32 32" width="22" height="22" aria-hidden="true">
      <rect width="32" height="32" rx="7" fill="#0969da" />
      <path
        d="M10 6.5h9.5l5 5V25a1.5 1.5 0 0 1-1.5 1.5H10A1.5 1.5 0 0 1 8.5 25V8A1.5 1.5 0 0 1 10 6.5z"
        fill="#fff"
      />
      <path d="M19.5 6.5v5h5z" fill="#9ec5fe" />
      <path
        d="M12 15.5h8.5M12 19h8.5M12 22.5h5"
        stroke="#0969da"
        stroke-width="1.8"
        stroke-linecap="round"
      />
    </svg>
  )
}
