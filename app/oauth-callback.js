// Where an MCP server's authorization server sends the user back. In a
// popup: the answer (this URL, with its code and state) goes to the app
// that opened it, on this origin only, and the popup closes. Without a
// popup (the whole page went to sign in): the answer is left for the app,
// which finishes the sign-in when it starts again.
(function () {
  var answer = location.href;
  if (window.opener && window.opener !== window) {
    window.opener.postMessage({ type: 'air-oauth-callback', url: answer }, location.origin);
    window.close();
    return;
  }
  try {
    localStorage.setItem('air-agent-oauth-return', answer);
  } catch (e) {
    // Storage refused: the app will say the sign-in did not finish.
  }
  location.replace(new URL('./', location.href).href);
})();
