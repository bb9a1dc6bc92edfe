/** A page's error, read out at once by screen readers, and its last confirmation. */
export function Messages({ error, notice }: { error?: string | null; notice?: string | null }) {
  return (
    <>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {notice && (
        <p class="ok" role="status">
          {notice}
        </p>
      )}
    </>
  );
}

/** What a live event means, said the same on every page that shows it. */
export function LiveNotice() {
  return <p>The event is live: processed photos are published.</p>;
}
