/** Save `text` as a file named `name` (a Blob URL clicked, then freed): what the console's export buttons download. */
export function downloadText(text: string, name: string, type: string): void {
  const link = Object.assign(document.createElement('a'), { href: URL.createObjectURL(new Blob([text], { type })), download: name });
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}
