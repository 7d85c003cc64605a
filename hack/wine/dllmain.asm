# DllMain of the forwarder DLL: nothing to set up, report success.
	.text
	.globl	DllMain
DllMain:
	movl	$1, %eax
	ret
