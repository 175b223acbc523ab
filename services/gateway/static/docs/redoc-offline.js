// Redoc's side menu ends with "API docs by Redocly" and a logo it always loads from https://cdn.redoc.ly (no
// option turns it off). The page's CSP blocks it (img-src 'self' data:), which the browser reports as a console
// error on every visit; this swaps that one URL for an empty inline image before the request is made, so the
// docs work offline with a clean console. Loaded before redoc.standalone.js (React sets `src` as a property).
(function () {
  var REDOCLY_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
  var EMPTY_IMAGE = 'data:image/svg+xml,%3Csvg%20xmlns%3D%22http%3A%2F%2Fwww.w3.org%2F2000%2Fsvg%22%2F%3E';
  var offline = function (value) {
    return String(value) === REDOCLY_LOGO ? EMPTY_IMAGE : value;
  };

  var src = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, 'src');
  Object.defineProperty(HTMLImageElement.prototype, 'src', {
    configurable: true,
    enumerable: src.enumerable,
    get: src.get,
    set: function (value) {
      src.set.call(this, offline(value));
    },
  });

  var setAttribute = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    var isImageSrc = this instanceof HTMLImageElement && String(name).toLowerCase() === 'src';
    return setAttribute.call(this, name, isImageSrc ? offline(value) : value);
  };
})();
