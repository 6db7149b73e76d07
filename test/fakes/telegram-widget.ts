/**
 * A stand-in for Telegram's login widget script (telegram.org/js/telegram-widget.js), which the closed
 * test network cannot reach. Like the real one it reads the `data-*` attributes of its own <script>
 * element and puts an iframe from oauth.telegram.org in its place; in redirect mode (`data-auth-url`)
 * Telegram later sends the browser to that address with the signed user fields in the query.
 */
export const TELEGRAM_WIDGET_SCRIPT = `
(function () {
  var script = document.currentScript;
  var bot = script.getAttribute('data-telegram-login');
  var params = new URLSearchParams({ origin: location.origin, size: script.getAttribute('data-size') || 'large' });
  var authUrl = script.getAttribute('data-auth-url');
  if (authUrl) params.set('return_to', authUrl);
  var access = script.getAttribute('data-request-access');
  if (access) params.set('request_access', access);
  var iframe = document.createElement('iframe');
  iframe.id = 'telegram-login-' + bot;
  iframe.src = 'https://oauth.telegram.org/embed/' + encodeURIComponent(bot) + '?' + params.toString();
  iframe.width = '238';
  iframe.height = '40';
  iframe.setAttribute('frameborder', '0');
  iframe.setAttribute('scrolling', 'no');
  iframe.title = 'Telegram login';
  script.parentNode.insertBefore(iframe, script.nextSibling);
})();
`

/** What the iframe shows: Telegram's "Log in with Telegram" button. */
export const TELEGRAM_EMBED_PAGE = '<!doctype html><html lang="en"><title>Telegram</title><button>Log in with Telegram</button></html>'
